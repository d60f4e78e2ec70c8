import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { presentError, UsageError } from '../../cli/errors';
import { edgeFlipInputFrom } from '../../cli/runbook/start/edge-flip-input';
import { resolveRunbookId } from '../../cli/runbook/kinds';
import { Name } from '../../mesh/schemas';

/** Found by the chaos suite (scripts/chaos, bad operator input): what a hostile argument did to the CLI. */
describe('the CLI on hostile arguments', () => {
  it('shows control characters of an argument escaped, never sends them to the terminal', () => {
    const presented = presentError(
      new UsageError(
        '--node "esc\u001b[31mred\u0007" is invalid: lower-case letters.',
        'e.g. --node\u009b2J novox',
      ),
    );
    assert.equal(presented.message, '--node "esc\\u001b[31mred\\u0007" is invalid: lower-case letters.');
    assert.equal(presented.suggestion, 'e.g. --node\\u009b2J novox');
    assert.equal(
      presentError(new Error('line one\nline two')).message,
      'line one\nline two',
      'line breaks stay',
    );
  });

  it('refuses a name longer than a host name label (63 characters) before anything starts', () => {
    assert.equal(Name.safeParse('a'.repeat(63)).success, true);
    assert.equal(Name.safeParse('a'.repeat(64)).success, false);
    assert.throws(
      () =>
        edgeFlipInputFrom(
          {
            node: 'a'.repeat(5_000),
            module: 'route-proxy',
            predecessor: 'caddy',
            publicName: ['example.org'],
            publicAddress: 'http://10.0.0.5:80',
            successorAddress: 'http://10.0.0.5:8081',
            successorMarker: 'route-proxy',
            predecessorMarker: 'caddy',
          },
          'alice',
        ),
      (error: unknown) => error instanceof UsageError && /at most 63/.test(error.message),
    );
    assert.throws(() => resolveRunbookId('a'.repeat(5_000)), UsageError);
  });

  it('refuses an address whose port no socket can have, instead of starting a runbook that cannot probe it', () => {
    for (const publicAddress of ['http://127.0.0.1:99999', 'http://127.0.0.1:0'])
      assert.throws(
        () =>
          edgeFlipInputFrom(
            {
              node: 'novox',
              module: 'route-proxy',
              predecessor: 'caddy',
              publicName: ['example.org'],
              publicAddress,
              successorAddress: 'http://10.0.0.5:8081',
              successorMarker: 'route-proxy',
              predecessorMarker: 'caddy',
            },
            'alice',
          ),
        (error: unknown) => error instanceof UsageError && /port must be 1 to 65535/.test(error.message),
        publicAddress,
      );
  });
});
