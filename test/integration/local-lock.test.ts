import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { acquireLock, LockTimeoutError } from '../../mesh/local';
import { Scratch } from '../support/scratch';

describe('local mesh lock files', () => {
  const scratch = new Scratch();
  after(() => scratch.cleanup());

  it('makes a second taker wait, naming the holder, until the first releases', async () => {
    const file = join(await scratch.dir(), 'agent.lock');
    const release = await acquireLock(file, { timeoutMs: 1_000 });
    await assert.rejects(acquireLock(file, { timeoutMs: 200 }), (error: unknown) => {
      assert.ok(error instanceof LockTimeoutError);
      assert.match(error.message, new RegExp(`held by process ${process.pid}`));
      return true;
    });
    const second = acquireLock(file, { timeoutMs: 2_000 });
    await release();
    await (
      await second
    )();
  });

  it('lets sixty takers of one process have it in the order they asked, though the line outlasts the timeout', async () => {
    const file = join(await scratch.dir(), 'controller.lock');
    const order: number[] = [];
    const takers = Array.from({ length: 60 }, async (_, i) => {
      const release = await acquireLock(file, { timeoutMs: 1_000 });
      order.push(i);
      await delay(30);
      await release();
    });
    const outcomes = await Promise.allSettled(takers);
    assert.deepEqual(
      outcomes.flatMap((o) => (o.status === 'rejected' ? [String(o.reason)] : [])),
      [],
      'no taker timed out while the lock kept changing hands',
    );
    assert.deepEqual(
      order,
      Array.from({ length: 60 }, (_, i) => i),
    );
  });

  it('gives up every taker in line when the holder never lets go, and serves the next one once it does', async () => {
    const file = join(await scratch.dir(), 'controller.lock');
    const release = await acquireLock(file, { timeoutMs: 1_000 });
    const line = await Promise.allSettled(
      Array.from({ length: 5 }, () => acquireLock(file, { timeoutMs: 300 })),
    );
    for (const outcome of line) {
      assert.equal(outcome.status, 'rejected');
      assert.ok(outcome.reason instanceof LockTimeoutError);
      assert.match(outcome.reason.message, new RegExp(`held by process ${process.pid}`));
    }
    await release();
    await (
      await acquireLock(file, { timeoutMs: 300 })
    )();
  });

  it('breaks a lock whose holder died', async () => {
    const file = join(await scratch.dir(), 'agent.lock');
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    assert.ok(dead);
    await writeFile(file, JSON.stringify({ pid: dead, token: 'gone', since: new Date().toISOString() }));
    const release = await acquireLock(file, { timeoutMs: 500 });
    assert.equal(JSON.parse(await readFile(file, 'utf8')).pid, process.pid);
    await release();
  });

  it('breaks a lock whose holder died though its pid now names a thread of a live process', async () => {
    // Seen in CI: the lab's story lock left by a test process whose pid became a thread of `npm run chaos`.
    const file = join(await scratch.dir(), 'story.lock');
    const thread = (await readdir('/proc/self/task')).map(Number).find((id) => id !== process.pid);
    assert.ok(thread, 'this process runs threads besides its main one');
    await writeFile(file, JSON.stringify({ pid: thread, token: 'gone', since: new Date().toISOString() }));
    const release = await acquireLock(file, { timeoutMs: 500 });
    assert.equal(JSON.parse(await readFile(file, 'utf8')).pid, process.pid);
    await release();
  });

  it('breaks a lock whose holder died though another process has its pid since (its start time differs)', async () => {
    const file = join(await scratch.dir(), 'reused.lock');
    const holder = { pid: process.pid, token: 'gone', since: new Date().toISOString(), startTicks: '1' };
    await writeFile(file, JSON.stringify(holder));
    const release = await acquireLock(file, { timeoutMs: 500 });
    assert.equal(JSON.parse(await readFile(file, 'utf8')).token.length, 16, 'taken by this process');
    await release();
  });

  it('keeps a lock whose holder runs: same pid, same start time', async () => {
    const file = join(await scratch.dir(), 'held.lock');
    const release = await acquireLock(file, { timeoutMs: 500 });
    const held = JSON.parse(await readFile(file, 'utf8')) as { startTicks?: string };
    assert.match(held.startTicks ?? '', /^\d+$/, 'the holder says when its process started');
    const take = `require(${JSON.stringify(require.resolve('../../mesh/local'))}).acquireLock(${JSON.stringify(file)}, { timeoutMs: 300 }).then(
      () => { console.log('taken'); process.exit(0); },
      (error) => { console.log(error.message); process.exit(3); })`;
    const taker = spawnSync(process.execPath, ['--require', 'tsx/cjs', '-e', take], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.match(taker.stdout, new RegExp(`held by process ${process.pid}`), taker.stdout);
    assert.equal(taker.status, 3, String(taker.stderr));
    await release();
  });

  it('never breaks a lock held in another PID namespace (a container sharing the state), though its pid is not seen there', async () => {
    const file = join(await scratch.dir(), 'node.lock');
    const release = await acquireLock(file, { timeoutMs: 500 });
    try {
      // A real second PID namespace, with its own /proc: this process's pid names nothing in it.
      const taker = `require(${JSON.stringify(require.resolve('../../mesh/local'))}).acquireLock(${JSON.stringify(file)}, { timeoutMs: 800 }).then(
        () => { console.log('taken'); process.exit(0); },
        (error) => { console.log(error.message); process.exit(1); })`;
      const other = spawnSync(
        'unshare',
        ['--pid', '--fork', '--mount-proc', process.execPath, '--require', 'tsx/cjs', '-e', taker],
        { encoding: 'utf8', timeout: 60_000 },
      );
      assert.equal(other.status, 1, `${other.stdout}${other.stderr}`);
      assert.match(other.stdout, new RegExp(`held by process ${process.pid} of another PID namespace`));
      assert.equal(JSON.parse(await readFile(file, 'utf8')).pid, process.pid, 'the lock is still ours');
    } finally {
      await release();
    }
  });
});
