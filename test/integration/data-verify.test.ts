import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  chmod,
  chown,
  copyFile,
  link,
  mkdir,
  rm,
  stat,
  symlink,
  unlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { MockActivityEnvironment } from '@temporalio/testing';
import { hostRootFromMesh } from '../../activities';
import { createDataActivities, type CopyProgress } from '../../activities/data';
import { LocalMesh } from '../../mesh/local';
import { Scratch } from '../support/scratch';

describe('verifying a copied data tree', () => {
  const scratch = new Scratch();
  const node = 'n1';
  const move = { node, from: '/srv/app', to: '/var/lib/app' };
  let data: ReturnType<typeof createDataActivities>;
  let a = '';
  let b = '';

  before(async () => {
    const hostRoot = await scratch.dir('mesh-data-verify-');
    const mesh = new LocalMesh({ stateDir: join(hostRoot, 'state') });
    await mesh.createNode(node, { adopted: false, hostRoot });
    data = createDataActivities({ mesh, hostRootOf: hostRootFromMesh(mesh) });
    [a, b] = [join(hostRoot, 'srv/app'), join(hostRoot, 'var/lib/app')];
    await mkdir(join(a, 'db'), { recursive: true });
    for (const name of ['db/main.db', 'db/wal', 'notes.txt', 'same.txt'])
      await writeFile(join(a, name), randomBytes(64 << 10));
    await link(join(a, 'db/main.db'), join(a, 'db/main.link'));
    await symlink('db/main.db', join(a, 'latest'));
  });
  beforeEach(async () => {
    await rm(b, { recursive: true, force: true });
    await data.copyTree(move);
  });
  after(() => scratch.cleanup());

  it('finds nothing in a faithful copy, and counts files and bytes', async () => {
    assert.deepEqual(await data.verifyTree(move), {
      files: 5,
      bytes: 4 * (64 << 10),
      mismatches: [],
      details: [],
      mismatchCount: 0,
    });
  });

  it('names each differing path, sorted, with what differs', async () => {
    const changed = join(b, 'db/wal');
    const { mtime } = await stat(changed);
    await writeFile(changed, randomBytes(64 << 10)); // same size, same time: only the checksum tells
    await utimes(changed, mtime, mtime);
    await unlink(join(b, 'notes.txt'));
    await writeFile(join(b, 'stray.tmp'), 'x');
    await chmod(join(b, 'db'), 0o700);
    await chown(join(b, 'same.txt'), 1234, 1234);
    await rm(join(b, 'latest'));
    await symlink('db/wal', join(b, 'latest'));
    await unlink(join(b, 'db/main.link'));
    await copyFile(join(b, 'db/main.db'), join(b, 'db/main.link'));

    const result = await data.verifyTree(move);
    assert.deepEqual(result.details, [
      { path: 'db', problem: 'mode differs' },
      { path: 'db/main.link', problem: 'hard links differ from the source' },
      { path: 'db/wal', problem: 'content differs' },
      { path: 'latest', problem: 'link target differs' },
      { path: 'notes.txt', problem: 'missing' },
      { path: 'same.txt', problem: 'owner differs' },
      { path: 'stray.tmp', problem: 'extra' },
    ]);
    assert.deepEqual(result.mismatches, [
      'db',
      'db/main.link',
      'db/wal',
      'latest',
      'notes.txt',
      'same.txt',
      'stray.tmp',
    ]);
    assert.equal(result.mismatchCount, 7);
  });

  it('notices a size change and a file replaced by a directory', async () => {
    await writeFile(join(b, 'db/main.db'), 'short');
    await unlink(join(b, 'same.txt'));
    await mkdir(join(b, 'same.txt'));
    const result = await data.verifyTree(move);
    assert.deepEqual(result.details, [
      { path: 'db/main.db', problem: 'size differs' },
      { path: 'db/main.link', problem: 'size differs' }, // the same inode
      { path: 'same.txt', problem: 'type differs (file vs dir)' },
    ]);
  });

  it('is clean again after a fresh copy over the differing target (recopy)', async () => {
    const changed = join(b, 'db/wal');
    const { mtime } = await stat(changed);
    await writeFile(changed, randomBytes(64 << 10));
    await utimes(changed, mtime, mtime);
    await writeFile(join(b, 'stray.tmp'), 'x');
    await mkdir(join(b, 'stray-dir/deeper'), { recursive: true });
    await unlink(join(b, 'same.txt'));
    await mkdir(join(b, 'same.txt'));
    await rm(join(b, 'latest'));
    await writeFile(join(b, 'latest'), 'not a link');
    assert.equal((await data.verifyTree(move)).mismatchCount, 6); // stray-dir and stray-dir/deeper both
    const recopy = await data.copyTree(move);
    assert.equal(recopy.resumed, false);
    assert.deepEqual((await data.verifyTree(move)).details, []);
  });

  it('caps the list it returns but counts every difference', async () => {
    await mkdir(join(b, 'junk'));
    for (let i = 0; i < 60; i++) await writeFile(join(b, 'junk', `f${String(i).padStart(2, '0')}`), '');
    const result = await data.verifyTree(move);
    assert.equal(result.mismatchCount, 61);
    assert.equal(result.mismatches.length, 50);
    assert.deepEqual(result.mismatches.slice(0, 2), ['junk', 'junk/f00']);
  });

  it('heartbeats its progress as an activity', async () => {
    const env = new MockActivityEnvironment();
    const beats: CopyProgress[] = [];
    env.on('heartbeat', (details: CopyProgress) => beats.push(details));
    await env.run(data.verifyTree, move);
    assert.deepEqual(
      { ...beats.at(-1), bytesPerSecond: 0 },
      { files: 4, bytes: 4 * (64 << 10), totalFiles: 4, totalBytes: 4 * (64 << 10), bytesPerSecond: 0 },
    );
  });
});
