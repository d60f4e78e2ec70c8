import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { heartbeat } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { keepAlive } from '../../worker/keep-alive';
import { progressPhrase, progressPosition } from '../../worker/stall-watch';

/** Runs `work` as an activity with `info`, the keep-alive interceptor on; the details of every beat sent. */
async function beatsOf(
  info: { heartbeatTimeoutMs?: number; heartbeatDetails?: unknown },
  work: () => Promise<void>,
): Promise<unknown[]> {
  const env = new MockActivityEnvironment(info, { interceptors: [keepAlive()] });
  const beats: unknown[] = [];
  env.on('heartbeat', (details: unknown) => beats.push(details));
  await env.run(work);
  return beats;
}

describe('the keep-alive interceptor beats for an activity with a heartbeat timeout', () => {
  it('beats several times per timeout while an activity that never beats itself runs', async () => {
    const beats = await beatsOf({ heartbeatTimeoutMs: 400 }, () => delay(1_000));
    assert.ok(beats.length >= 6, `${beats.length} beats in 1 s with a 400 ms timeout`);
  });

  it("repeats the details the activity last gave, never an empty beat over a copy's progress", async () => {
    const beats = await beatsOf({ heartbeatTimeoutMs: 400 }, async () => {
      heartbeat({ copiedBytes: 100 });
      await delay(500);
      heartbeat({ copiedBytes: 200 });
      await delay(500);
    });
    assert.deepEqual(beats[0], { copiedBytes: 100 });
    assert.ok(beats.length >= 6, `${beats.length} beats`);
    assert.ok(beats.every((d) => d !== undefined));
    assert.deepEqual(beats.at(-1), { copiedBytes: 200 });
  });

  it("repeats the previous attempt's details until the retry gives its own", async () => {
    const beats = await beatsOf({ heartbeatTimeoutMs: 400, heartbeatDetails: { copiedBytes: 600 } }, () =>
      delay(500),
    );
    assert.ok(beats.length >= 2);
    assert.ok(beats.every((d) => JSON.stringify(d) === JSON.stringify({ copiedBytes: 600 })));
  });

  it('leaves an activity without a heartbeat timeout alone, and stops beating when the activity ends', async () => {
    assert.deepEqual(await beatsOf({}, () => delay(300)), []);
    const env = new MockActivityEnvironment({ heartbeatTimeoutMs: 200 }, { interceptors: [keepAlive()] });
    let after = 0;
    let ended = false;
    env.on('heartbeat', () => (after += ended ? 1 : 0));
    await env.run(() => delay(200));
    ended = true;
    await delay(300);
    assert.equal(after, 0);
  });
});

describe('what the stall watch counts as progress', () => {
  it('counts work done and totals, never rates; details without counts are not watched', () => {
    const copy = { files: 3, bytes: 300, totalFiles: 9, totalBytes: 900, bytesPerSecond: 50, scanned: 12 };
    assert.equal(
      progressPosition(copy),
      progressPosition({ ...copy, bytesPerSecond: 7 }),
      'a rate that changes is no progress',
    );
    assert.notEqual(progressPosition(copy), progressPosition({ ...copy, bytes: 301 }));
    assert.notEqual(
      progressPosition(copy),
      progressPosition({ ...copy, scanned: 13 }),
      'a scan that finds entries moves',
    );
    assert.equal(progressPosition({ scanning: '/srv/forge' }), undefined);
    assert.equal(progressPosition(undefined), undefined);
    assert.equal(progressPosition([1, 2]), undefined);
  });

  it('words it as the operator reads it', () => {
    assert.equal(
      progressPhrase({
        files: 3,
        bytes: 300,
        totalFiles: 9,
        totalBytes: 900,
        bytesPerSecond: 50,
        scanned: 12,
      }),
      '3 of 9 files, 300 of 900 bytes',
    );
    assert.equal(
      progressPhrase({ files: 0, bytes: 0, totalFiles: 0, totalBytes: 0, scanned: 4096 }),
      '4096 entries scanned',
    );
    assert.equal(
      progressPhrase({ catchingUp: '/var/lib/forge', done: 2, total: 5, scanned: 40 }),
      '2 of 5 paths',
    );
    assert.equal(progressPhrase({ scanning: '/srv/forge' }), undefined);
  });
});
