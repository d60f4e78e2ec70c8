import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import {
  chmod,
  link,
  lchown,
  lstat,
  mkdir,
  readdir,
  readlink,
  symlink,
  utimes,
  lutimes,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { CopyProgress } from '../../activities/data';
import { LocalMesh } from '../../mesh/local';
import { dataActivitiesFor } from '../support/data-activities';
import { Scratch } from '../support/scratch';

const WHEN = new Date('2020-01-02T03:04:05.678Z');
const CONFIG = '[core]\n\tbare = true\n';
const HOOK = '#!/bin/sh\n';
/** Bytes of the forge tree: the hard-linked pack counts once. */
const FORGE_BYTES = (3 << 20) + CONFIG.length + HOOK.length;

/** A forge-like tree: odd owners and modes (setuid too), fixed times, symlinks, a hard-linked pair. */
async function seedForge(root: string): Promise<void> {
  await mkdir(join(root, 'repos/a.git'), { recursive: true });
  await mkdir(join(root, 'empty'));
  await writeFile(join(root, 'repos/a.git/config'), CONFIG);
  await writeFile(join(root, 'repos/a.git/pack.bin'), randomBytes(3 << 20));
  await link(join(root, 'repos/a.git/pack.bin'), join(root, 'repos/pack-link.bin'));
  await writeFile(join(root, 'hook'), HOOK);
  await writeFile(join(root, 'zero'), '');
  await symlink('repos/a.git', join(root, 'current'));
  await symlink('/nowhere/at/all', join(root, 'dangling'));
  await chmod(join(root, 'repos/a.git/config'), 0o640);
  await chmod(join(root, 'hook'), 0o755);
  await chmod(join(root, 'empty'), 0o700);
  for (const [path, uid, gid] of [
    ['repos', 1234, 1234],
    ['repos/a.git/config', 1234, 2345],
    ['hook', 1234, 1234],
    ['current', 1234, 1234],
  ] as const)
    await lchown(join(root, path), uid, gid);
  await chmod(join(root, 'hook'), 0o4755); // after chown, which clears set-id bits
  for (const path of [
    'repos/a.git/config',
    'repos/a.git/pack.bin',
    'hook',
    'zero',
    'empty',
    'repos/a.git',
    'repos',
    '',
  ])
    await utimes(join(root, path), WHEN, WHEN);
  await lutimes(join(root, 'current'), WHEN, WHEN);
}

async function lstatTree(root: string, rel = ''): Promise<Map<string, Stats>> {
  const found = new Map([[rel, await lstat(join(root, rel))]]);
  if (!found.get(rel)?.isDirectory()) return found;
  for (const name of await readdir(join(root, rel)))
    for (const [path, stat] of await lstatTree(root, rel ? `${rel}/${name}` : name)) found.set(path, stat);
  return found;
}

describe('copying a data tree', () => {
  const scratch = new Scratch();
  let hostRoot = '';
  let data: ReturnType<typeof dataActivitiesFor>;
  const node = 'n1';

  before(async () => {
    hostRoot = await scratch.dir('mesh-data-copy-');
    const mesh = new LocalMesh({ stateDir: join(hostRoot, 'state') });
    await mesh.createNode(node, { adopted: false, hostRoot });
    data = dataActivitiesFor(mesh, hostRoot);
    await seedForge(join(hostRoot, 'srv/forge'));
  });
  after(() => scratch.cleanup());

  it('preserves owners, modes, times, symlinks and hard links', async () => {
    const result = await data.copyTree({ node, from: '/srv/forge', to: '/var/lib/forge' });
    assert.deepEqual(
      { ...result, seconds: 0 },
      {
        files: 5,
        bytes: FORGE_BYTES,
        bytesCopiedThisAttempt: FORGE_BYTES,
        resumed: false,
        resumedFromBytes: 0,
        seconds: 0,
      },
    );
    const [a, b] = [join(hostRoot, 'srv/forge'), join(hostRoot, 'var/lib/forge')];
    const [source, copy] = [await lstatTree(a), await lstatTree(b)];
    assert.deepEqual([...copy.keys()].sort(), [...source.keys()].sort());
    for (const [rel, s] of source) {
      const c = copy.get(rel) as Stats;
      assert.deepEqual([c.mode.toString(8), c.uid, c.gid], [s.mode.toString(8), s.uid, s.gid], rel);
      assert.equal(Math.floor(c.mtimeMs), Math.floor(s.mtimeMs), rel);
      if (s.isSymbolicLink()) assert.equal(await readlink(join(b, rel)), await readlink(join(a, rel)));
      if (s.isFile()) assert.notEqual(c.ino, s.ino, `${rel} is a copy, not a link to the source`);
    }
    assert.equal(copy.get('hook')?.mode, 0o104755, 'setuid survives the chown');
    assert.equal(copy.get('repos')?.mtime.getTime(), WHEN.getTime());
    assert.equal(copy.get('repos/pack-link.bin')?.ino, copy.get('repos/a.git/pack.bin')?.ino);
    assert.equal(copy.get('repos/pack-link.bin')?.nlink, 2);
    assert.deepEqual(
      (await data.verifyTree({ node, from: '/srv/forge', to: '/var/lib/forge' })).mismatches,
      [],
    );
  });

  it('heartbeats progress as an activity (the entries its scan found, too)', async () => {
    const env = new MockActivityEnvironment();
    const beats: CopyProgress[] = [];
    env.on('heartbeat', (details: CopyProgress) => beats.push(details));
    await env.run(data.copyTree, { node, from: '/srv/forge', to: '/srv/forge-beats' });
    const last = beats.at(-1);
    assert.ok(last, 'at least one heartbeat');
    assert.deepEqual(
      { ...last, bytesPerSecond: 0 },
      {
        files: 5,
        bytes: FORGE_BYTES,
        totalFiles: 5,
        totalBytes: FORGE_BYTES,
        scanned: 10,
        bytesPerSecond: 0,
      },
    );
  });
});
