import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
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

  it('breaks a lock whose holder died', async () => {
    const file = join(await scratch.dir(), 'agent.lock');
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    assert.ok(dead);
    await writeFile(file, JSON.stringify({ pid: dead, token: 'gone', since: new Date().toISOString() }));
    const release = await acquireLock(file, { timeoutMs: 500 });
    assert.equal(JSON.parse(await readFile(file, 'utf8')).pid, process.pid);
    await release();
  });
});
