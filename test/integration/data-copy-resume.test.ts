import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { link, lstat, mkdir, symlink, truncate, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { CopyProgress, CopyResult } from '../../activities/data';
import { copyTreeWithResume } from '../../activities/data/copy-tree';
import { verifyTrees } from '../../activities/data/verify-tree';
import { LocalMesh } from '../../mesh/local';
import { dataActivitiesFor } from '../support/data-activities';
import { Scratch } from '../support/scratch';

const FILE = 256 << 10;
const FILES = 40;

describe('resuming a data copy', () => {
  const scratch = new Scratch();
  const node = 'n1';
  const move = { node, from: '/srv/many', to: '/var/lib/many' };
  let data: ReturnType<typeof dataActivitiesFor>;
  let [from, to] = ['', ''];
  /** The activity as a retry runs it: attempt > 1, with the details the last attempt heartbeated. */
  const retry = async (attempt: number, heartbeatDetails?: CopyProgress): Promise<CopyResult> =>
    (await new MockActivityEnvironment({ attempt, heartbeatDetails }).run(data.copyTree, move)) as CopyResult;

  before(async () => {
    const hostRoot = await scratch.dir('mesh-data-resume-');
    const mesh = new LocalMesh({ stateDir: join(hostRoot, 'state') });
    await mesh.createNode(node, { adopted: false, hostRoot });
    data = dataActivitiesFor(mesh, hostRoot);
    [from, to] = [join(hostRoot, 'srv/many'), join(hostRoot, 'var/lib/many')];
    await mkdir(join(from, 'sub'), { recursive: true });
    for (let i = 0; i < FILES; i++)
      await writeFile(join(from, `f${String(i).padStart(2, '0')}`), randomBytes(FILE));
    await link(join(from, 'f00'), join(from, 'sub/f00-link'));
    await link(join(from, 'f20'), join(from, 'sub/f20-link'));
    await symlink('../f01', join(from, 'sub/latest'));
  });
  after(() => scratch.cleanup());

  it('skips what an interrupted attempt completed, and the result verifies', async () => {
    // One lane copies f00, f01, ... in turn: the worker dies at the first look after the tenth.
    const copied = () => (existsSync(to) ? readdirSync(to).filter((name) => /^f\d\d$/.test(name)).length : 0);
    const killedAfterTen = {
      throwIfAborted: () => void (copied() >= 10 && assert.fail('worker killed')),
    } as AbortSignal;
    const beats: CopyProgress[] = [];
    await assert.rejects(
      copyTreeWithResume(from, to, undefined, (p) => beats.push(p), { signal: killedAfterTen, lanes: 1 }),
    );
    assert.equal(beats.at(-1)?.totalBytes, FILES * FILE);
    await truncate(join(to, 'f09'), 1000); // the file in flight when the worker died
    await unlink(join(to, 'f03'));

    const result = await retry(2, beats.at(-1));
    assert.equal(result.resumed, true);
    assert.deepEqual([result.files, result.bytes], [FILES + 2, FILES * FILE]);
    assert.equal(result.bytesCopiedThisAttempt, 32 * FILE, 'f03, f09 and the 30 files never reached');
    assert.ok(result.bytesCopiedThisAttempt < result.bytes);
    const verified = await verifyTrees(from, to);
    assert.deepEqual(verified, {
      files: FILES + 2,
      bytes: FILES * FILE,
      mismatches: [],
      details: [],
      differences: [],
      mismatchCount: 0,
    });
    assert.equal((await lstat(join(to, 'sub/f20-link'))).ino, (await lstat(join(to, 'f20'))).ino);
  });

  it('resumes on a retry that heartbeated nothing; a first attempt copies everything', async () => {
    const again = await retry(3);
    assert.deepEqual([again.resumed, again.bytesCopiedThisAttempt], [true, 0]);
    assert.equal(
      (await lstat(join(to, 'sub/f00-link'))).nlink,
      2,
      'the resumed hard link is still one inode',
    );
    const fresh = await data.copyTree(move);
    assert.deepEqual([fresh.resumed, fresh.bytesCopiedThisAttempt], [false, FILES * FILE]);
    assert.deepEqual((await verifyTrees(from, to)).mismatches, []);
  });

  it('stops at the next file when the activity is cancelled (abort)', async () => {
    const env = new MockActivityEnvironment();
    const running = env.run(data.copyTree, { ...move, to: '/var/lib/many-aborted' });
    env.cancel('CANCELLED');
    await assert.rejects(running, (error) => error instanceof CancelledFailure);
  });
});
