import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  chmod,
  chown,
  copyFile,
  link,
  lstat,
  mkdir,
  rm,
  stat,
  symlink,
  unlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { CopyProgress } from '../../activities/data';
import { LocalMesh } from '../../mesh/local';
import { dataActivitiesFor } from '../support/data-activities';
import { Scratch } from '../support/scratch';

describe('verifying a copied data tree', () => {
  const scratch = new Scratch();
  const node = 'n1';
  const move = { node, from: '/srv/app', to: '/var/lib/app' };
  let data: ReturnType<typeof dataActivitiesFor>;
  let a = '';
  let b = '';

  before(async () => {
    const hostRoot = await scratch.dir('mesh-data-verify-');
    const mesh = new LocalMesh({ stateDir: join(hostRoot, 'state') });
    await mesh.createNode(node, { adopted: false, hostRoot });
    data = dataActivitiesFor(mesh, hostRoot);
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
      differences: [],
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

  it('says for each differing path everything that differs: content, size, owner, mode, link target, type, mtime', async () => {
    const changed = join(b, 'db/wal');
    const { mtime } = await stat(changed);
    await writeFile(changed, randomBytes(64 << 10));
    await chmod(changed, 0o600);
    await utimes(changed, mtime, mtime);
    await writeFile(join(b, 'notes.txt'), 'short');
    await chown(join(b, 'notes.txt'), 1234, 1234);
    await rm(join(b, 'latest'));
    await symlink('db/wal', join(b, 'latest'));
    await unlink(join(b, 'same.txt'));
    await mkdir(join(b, 'same.txt'));
    await rm(join(b, 'db/main.link'));
    await writeFile(join(b, 'only-here'), '');
    const result = await data.verifyTree(move);
    assert.deepEqual(result.differences, [
      { path: 'db/main.link', what: ['missing on B'] },
      { path: 'db/wal', what: ['mode', 'content', 'mtime'] },
      { path: 'latest', what: ['link target', 'mtime'] },
      { path: 'notes.txt', what: ['owner', 'size', 'mtime'] },
      { path: 'only-here', what: ['only on B'] },
      { path: 'same.txt', what: ['type'] },
    ]);
    assert.deepEqual(
      result.details.map((d) => d.problem),
      [
        'missing',
        'mode differs',
        'link target differs',
        'owner differs',
        'extra',
        'type differs (file vs dir)',
      ],
    );
  });

  it('keeps file times to the microsecond, the finest Node can set, and a copy a microsecond off differs', async () => {
    const stamp = (path: string, at: string) => execFileSync('touch', ['-h', '-d', `@${at}`, path]);
    stamp(join(a, 'notes.txt'), '1700000000.123456789');
    stamp(join(a, 'latest'), '1700000001.987654321');
    await rm(b, { recursive: true, force: true });
    await data.copyTree(move);
    const mtimeNs = async (path: string) => (await lstat(path, { bigint: true })).mtimeNs;
    assert.equal(await mtimeNs(join(a, 'notes.txt')), 1700000000123456789n, 'the source keeps nanoseconds');
    assert.equal(await mtimeNs(join(b, 'notes.txt')), 1700000000123456000n);
    assert.equal(await mtimeNs(join(b, 'latest')), 1700000001987654000n, 'a symlink has its own time');
    assert.deepEqual((await data.verifyTree(move)).differences, []);

    stamp(join(b, 'notes.txt'), '1700000000.123457000');
    stamp(join(b, 'latest'), '1700000001.987653999');
    assert.deepEqual((await data.verifyTree(move)).differences, [
      { path: 'latest', what: ['mtime'] },
      { path: 'notes.txt', what: ['mtime'] },
    ]);
  });

  it('caps the list it returns but counts every difference', async () => {
    await mkdir(join(b, 'junk'));
    for (let i = 0; i < 60; i++) await writeFile(join(b, 'junk', `f${String(i).padStart(2, '0')}`), '');
    const result = await data.verifyTree(move);
    assert.equal(result.mismatchCount, 61);
    assert.equal(result.mismatches.length, 50);
    assert.deepEqual(result.mismatches.slice(0, 2), ['junk', 'junk/f00']);
  });

  it('stops when the activity is cancelled (an abort during verification)', async () => {
    const env = new MockActivityEnvironment();
    const running = env.run(data.verifyTree, move);
    env.cancel('CANCELLED');
    await assert.rejects(running, (error) => error instanceof CancelledFailure);
  });

  it('heartbeats its progress as an activity', async () => {
    const env = new MockActivityEnvironment();
    const beats: CopyProgress[] = [];
    env.on('heartbeat', (details: CopyProgress) => beats.push(details));
    await env.run(data.verifyTree, move);
    assert.deepEqual(
      { ...beats.at(-1), bytesPerSecond: 0 },
      {
        files: 4,
        bytes: 4 * (64 << 10),
        totalFiles: 4,
        totalBytes: 4 * (64 << 10),
        scanned: 14, // the entries of A and B below their roots
        bytesPerSecond: 0,
      },
    );
  });
});
