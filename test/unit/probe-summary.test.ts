import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { summariseProbes } from '../../activities/probes';

describe('probe summary', () => {
  const context = { address: 'http://127.0.0.1:18080', expectStatus: 200 };

  it('says how many names answered as expected, and from where', () => {
    const ok = (name: string) => ({ name, ok: true, status: 200 });
    assert.equal(
      summariseProbes([ok('a.example'), ok('b.example'), ok('c.example')], context),
      '3/3 names answered 200 from http://127.0.0.1:18080',
    );
    assert.equal(summariseProbes([ok('a.example')]), '1/1 name answered as expected');
  });

  it('names each failing name and why', () => {
    const line = summariseProbes(
      [
        { name: 'a.example', ok: true, status: 200, markerFound: true },
        { name: 'b.example', ok: false, status: 502 },
        { name: 'c.example', ok: false, status: 200, markerFound: false },
        { name: 'd.example', ok: false, error: 'connect ECONNREFUSED 127.0.0.1:1' },
      ],
      context,
    );
    assert.equal(
      line,
      '1/4 names answered 200 from http://127.0.0.1:18080; b.example answered 502; ' +
        'c.example answered 200 without the marker; d.example: connect ECONNREFUSED 127.0.0.1:1',
    );
    assert.doesNotMatch(line, /\n/);
  });
});
