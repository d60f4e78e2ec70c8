import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import {
  chmod,
  chown,
  link,
  lstat,
  mkdir,
  readdir,
  readlink,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import type { History } from '@temporalio/common/lib/proto-utils';
import { containerName, hostPathOnNode } from '../../docker/placement';
import { seedForgeScenario } from '../../mesh/local/scenarios/forge-move';
import type { DataPathMoveInputArg, RunbookStatus, Timings } from '../../workflows/contracts';
import type { Seedable } from './local-world';
import { FAST_TIMINGS, freePort } from './runbooks';

/** Where the forge's data lives before (A) and after (B) the move, as the node names them. */
export const FROM = '/srv/forge';
export const TO = '/var/lib/forge';

/** A forge module of this test's own on a fresh node: its name, image tag, node, host paths and port. */
export interface Forge {
  node: string;
  module: string;
  image: string;
  port: number;
  hostRoot: string;
  /** A and B on this machine (below the node's host root). */
  hostFrom: string;
  hostTo: string;
  /** The engine-wide name of the module's one container. */
  web: string;
}

/**
 * Seeds the forge incident on a fresh node of `world`: a module of a unique name (module specs are global
 * in a local mesh, so tests must not share one) under `roll-out`, its own image tag, running on A.
 */
export async function seedForge(world: Seedable, node = world.nodeName()): Promise<Forge> {
  const module = `forge-${randomBytes(3).toString('hex')}`;
  const image = world.imageName('forge');
  const port = await freePort();
  await seedForgeScenario(world.mesh, { node, module, image, from: FROM, port });
  const { hostRoot } = await world.mesh.nodeState(node);
  return {
    node,
    module,
    image,
    port,
    hostRoot,
    hostFrom: hostPathOnNode(hostRoot, FROM),
    hostTo: hostPathOnNode(hostRoot, TO),
    web: containerName(node, module, 'web'),
  };
}

/** The workflow input for moving the forge's data from A to B with short timings. */
export function moveInput(
  forge: Forge,
  overrides: Partial<DataPathMoveInputArg> = {},
  timings: Partial<Timings> = {},
): DataPathMoveInputArg {
  return {
    node: forge.node,
    module: forge.module,
    from: FROM,
    to: TO,
    containers: ['web'],
    startedBy: 'alice',
    timings: { ...FAST_TIMINGS, ...timings },
    ...overrides,
  };
}

/**
 * Adds what a copy must preserve beyond plain files: a directory and a file with their own modes and a
 * foreign owner, an old timestamp, a relative symlink, a dangling one, and a hard link.
 */
export async function addTrickyEntries(root: string): Promise<void> {
  await mkdir(join(root, 'private'), { recursive: true });
  await writeFile(join(root, 'private', 'key'), 'secret\n');
  await chmod(join(root, 'private', 'key'), 0o600);
  await chown(join(root, 'private', 'key'), 1234, 1234);
  await chmod(join(root, 'private'), 0o750);
  await chown(join(root, 'private'), 1234, 1234);
  const old = new Date('2020-02-02T02:02:02.123Z');
  await utimes(join(root, 'repos', 'r1', 'pack.bin'), old, old);
  await symlink('repos/r0/pack.bin', join(root, 'latest-pack'));
  await symlink('../nowhere', join(root, 'repos', 'dangling'));
  await link(join(root, 'repos', 'r2', 'pack.bin'), join(root, 'repos', 'r2', 'pack.hardlink'));
}

/**
 * Extra data of mixed sizes: ~`mib` MiB in a few 8 MiB packs and about 2,000 small files per 100 MiB
 * (`smallFiles` of them when given: small files are what makes a copy take long).
 */
export async function addBulkData(
  root: string,
  mib: number,
  smallFiles?: number,
): Promise<{ files: number; bytes: number }> {
  const pool = randomBytes(8 << 20);
  let files = 0;
  let bytes = 0;
  const add = async (rel: string, content: Buffer) => {
    await mkdir(dirname(join(root, rel)), { recursive: true });
    await writeFile(join(root, rel), content);
    files++;
    bytes += content.length;
  };
  const smallCount = smallFiles ?? Math.round((mib / 100) * 2_000);
  for (let i = 0; i < smallCount; i++) {
    const size = 1024 + ((i * 7919) % (24 << 10));
    await add(`bulk/small/d${i % 40}/f${i}`, pool.subarray(i % 4096, (i % 4096) + size));
  }
  for (let i = 0; bytes < mib << 20; i++) {
    const size = Math.min(8 << 20, (mib << 20) - bytes);
    const pack = Buffer.from(pool.subarray(0, size));
    pack.writeUInt32LE(i, 0);
    await add(`bulk/packs/p${i}.pack`, pack);
  }
  return { files, bytes };
}

async function sha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** One entry of a tree: everything but its mtime as one line, and its mtime in nanoseconds. */
export interface DigestEntry {
  line: string;
  mtimeNs: bigint;
}

/**
 * Every entry below `root`: type, mode, owner and mtime; for files, size and the sha256 of the content;
 * for symlinks the target; hard links name the first path of their inode. Two trees whose digests match
 * (digestDifferences) hold the same data with the same metadata.
 */
export async function treeDigest(root: string): Promise<Map<string, DigestEntry>> {
  const digest = new Map<string, DigestEntry>();
  const firstOfInode = new Map<string, string>();
  const visit = async (rel: string): Promise<void> => {
    const path = rel === '' ? root : join(root, rel);
    const stat = await lstat(path, { bigint: true });
    const meta = `mode ${(stat.mode & 0o7777n).toString(8)} owner ${stat.uid}:${stat.gid}`;
    const set = (line: string) => digest.set(rel, { line, mtimeNs: stat.mtimeNs });
    if (stat.isSymbolicLink()) {
      set(`symlink → ${await readlink(path)} owner ${stat.uid}:${stat.gid}`);
    } else if (stat.isDirectory()) {
      set(`dir ${meta}`);
      for (const name of (await readdir(path)).sort()) await visit(rel === '' ? name : `${rel}/${name}`);
    } else if (stat.isFile()) {
      const inode = `${stat.dev}:${stat.ino}`;
      const first = firstOfInode.get(inode) ?? rel;
      firstOfInode.set(inode, first);
      const linked = first === rel ? '' : ` hard link of ${first}`;
      set(`file ${meta} size ${stat.size} sha256 ${await sha256(path)}${linked}`);
    } else {
      set('special');
    }
  };
  await visit('');
  return digest;
}

/**
 * The copy sets times through `lutimes`, whose double seconds keep about a microsecond of a nanosecond
 * time (activities/data/metadata.ts): mtimes within 2 µs are the same time.
 */
const MTIME_TOLERANCE_NS = 2_000n;

/** The entries of two digests that differ, named by path, for an assertion message. */
export function digestDifferences(
  expected: Map<string, DigestEntry>,
  actual: Map<string, DigestEntry>,
): string[] {
  const show = (entry: DigestEntry | undefined) =>
    entry ? `${entry.line} mtime ${entry.mtimeNs}ns` : 'absent';
  const paths = [...new Set([...expected.keys(), ...actual.keys()])].sort();
  return paths
    .filter((path) => {
      const [a, b] = [expected.get(path), actual.get(path)];
      if (!a || !b || a.line !== b.line) return true;
      const drift = a.mtimeNs > b.mtimeNs ? a.mtimeNs - b.mtimeNs : b.mtimeNs - a.mtimeNs;
      return drift >= MTIME_TOLERANCE_NS;
    })
    .map((path) => `${path || '.'}: ${show(expected.get(path))} ≠ ${show(actual.get(path))}`);
}

/** Whether a path exists at all (lstat: a dangling symlink exists). */
export async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/** Milliseconds from one step's start (or end) to another's, from the runbook's own step times. */
export function stepTime(status: RunbookStatus, name: string, edge: 'startedAt' | 'endedAt'): number {
  const at = status.steps.find((step) => step.name === name)?.[edge];
  if (at === undefined) throw new Error(`step ${name} has no ${edge}: ${JSON.stringify(status.steps)}`);
  return Date.parse(at);
}

/** The decoded results of every completed activity of this type, in history order. */
export function activityResults<T>(history: History, activityType: string): T[] {
  const events = history.events ?? [];
  const scheduled = new Set(
    events
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === activityType)
      .map((e) => String(e.eventId)),
  );
  return events.flatMap((e) => {
    const done = e.activityTaskCompletedEventAttributes;
    if (!done || !scheduled.has(String(done.scheduledEventId))) return [];
    const payload = done.result?.payloads?.[0];
    return payload ? [defaultPayloadConverter.fromPayload<T>(payload)] : [];
  });
}

/** How many activities of each type the runbook scheduled. */
export function scheduledActivities(history: History): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const event of history.events ?? []) {
    const name = event.activityTaskScheduledEventAttributes?.activityType?.name;
    if (name) counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}
