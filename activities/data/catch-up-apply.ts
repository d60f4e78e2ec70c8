import { randomBytes } from 'node:crypto';
import { constants, type BigIntStats } from 'node:fs';
import {
  chmod,
  copyFile,
  lchown,
  lstat,
  mkdir,
  readdir,
  readlink,
  rename,
  rm,
  symlink,
} from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isBelow, parentOf, treeOrder, type CatchUpPlan } from './catch-up-plan';
import { manifestEntry, scanManifest, unchanged, type Manifest, type ManifestEntry } from './manifest';
import { copyMetadata } from './metadata';
import { kindOf } from './tree';

/** A and B, each as a manifest. */
export interface Sides {
  a: Manifest;
  b: Manifest;
}

export interface ApplyOptions {
  signal?: AbortSignal | undefined;
  onProgress?: ((progress: { done: number; total: number }) => void) | undefined;
  /** Called for each entry the scans of A and B find: progress while they scan. */
  onScanned?: (() => void) | undefined;
}

/** A path of B changed while the catch-up ran: this attempt stops, a retry compares again. */
export class ChangedDuringCatchUpError extends Error {
  override readonly name = 'ChangedDuringCatchUpError';
}

async function entryAt(path: string): Promise<{ stat: BigIntStats; entry: ManifestEntry } | undefined> {
  const stat = await lstat(path, { bigint: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
    throw error;
  });
  if (!stat) return undefined;
  const kind = kindOf(stat);
  const target = kind === 'symlink' ? await readlink(path) : undefined;
  return { stat, entry: manifestEntry({ kind, stat, ...(target !== undefined ? { target } : {}) }) };
}

/**
 * Applies a plan to B (see planCatchUp) and returns A and B as the new baseline: A as scanned (or as
 * copied, for what was brought), B as scanned with this catch-up's own writes. A later change on either
 * side therefore still shows as a change, also one made while this ran.
 */
export async function applyPlan(
  hostA: string,
  hostB: string,
  plan: CatchUpPlan,
  now: Sides,
  options: ApplyOptions,
): Promise<Sides> {
  const next = { a: { ...now.a }, b: { ...now.b } };
  const made: [string, BigIntStats][] = [];
  const progress = { done: 0, total: plan.bring.length + plan.remove.length };
  const step = () => {
    progress.done++;
    options.onProgress?.({ ...progress });
  };
  const expectOnB = async (rel: string) => {
    const found = await entryAt(join(hostB, rel));
    if (!unchanged(now.b[rel], found?.entry))
      throw new ChangedDuringCatchUpError(`${rel || '.'} changed on the target path during the catch-up`);
  };
  for (const rel of [...plan.remove].sort(treeOrder).reverse()) {
    options.signal?.throwIfAborted();
    await expectOnB(rel);
    if (now.b[rel]?.type === 'dir') await expectSubtreeUnchanged(hostB, rel, now.b);
    await rm(join(hostB, rel), { recursive: true, force: true });
    for (const path of Object.keys(next.b)) if (path === rel || isBelow(path, rel)) delete next.b[path];
    step();
  }
  for (const rel of plan.bring) {
    options.signal?.throwIfAborted();
    await expectOnB(rel);
    const source = await entryAt(join(hostA, rel));
    const target = join(hostB, rel);
    if (!source || source.entry.type !== now.a[rel]?.type)
      throw new ChangedDuringCatchUpError(`${rel} changed its type on the source path during the catch-up`);
    if (now.b[rel]?.type === 'dir' && source.entry.type !== 'dir')
      await expectSubtreeUnchanged(hostB, rel, now.b);
    if (source.entry.type === 'dir') {
      if (now.b[rel]?.type !== 'dir') {
        await rm(target, { recursive: true, force: true });
        await mkdir(target);
        made.push([rel, source.stat]);
      }
      await lchown(target, Number(source.stat.uid), Number(source.stat.gid));
      await chmod(target, source.entry.mode);
    } else {
      await replaceWithCopy(join(hostA, rel), target, source.stat, source.entry);
    }
    next.a[rel] = source.entry;
    step();
  }
  // Children change their directory's mtime, so new directories get theirs last, deepest first.
  for (const [rel, stat] of made.reverse()) await copyMetadata(join(hostB, rel), stat);
  await followTimesOfA(hostA, hostB, [...plan.bring, ...plan.remove].map(parentOf));
  for (const rel of plan.bring) {
    const written = await entryAt(join(hostB, rel));
    if (written) next.b[rel] = written.entry;
  }
  return next;
}

/**
 * A directory the catch-up wrote into gets A's times back when it now holds the same names as on A; one
 * that also holds B's own new entries keeps B's times.
 */
async function followTimesOfA(hostA: string, hostB: string, dirs: string[]): Promise<void> {
  for (const rel of [...new Set(dirs)].sort(treeOrder).reverse()) {
    const [a, b] = [join(hostA, rel), join(hostB, rel)];
    const [onA, onB] = await Promise.all([namesIn(a), namesIn(b)]);
    if (onA === undefined || onA !== onB) continue;
    await copyMetadata(b, await lstat(a, { bigint: true }));
  }
}

async function namesIn(dir: string): Promise<string | undefined> {
  const names = await readdir(dir).catch(() => undefined);
  return names?.sort().join('\0');
}

async function expectSubtreeUnchanged(hostB: string, dir: string, before: Manifest): Promise<void> {
  const found = await scanManifest(join(hostB, dir));
  const expected = Object.keys(before).filter((rel) => rel === dir || isBelow(rel, dir));
  const changed =
    expected.length !== Object.keys(found).length ||
    expected.some((rel) => !unchanged(before[rel], found[rel === dir ? '' : rel.slice(dir.length + 1)]));
  if (changed) throw new ChangedDuringCatchUpError(`${dir} changed on the target path during the catch-up`);
}

/** Puts A's file or symlink at `target` in one rename: B never shows half a file. */
async function replaceWithCopy(
  source: string,
  target: string,
  stat: BigIntStats,
  entry: ManifestEntry,
): Promise<void> {
  const temp = join(dirname(target), `.${basename(target)}.catch-up-${randomBytes(4).toString('hex')}`);
  try {
    if (entry.type === 'symlink') await symlink(entry.target as string, temp);
    else await copyFile(source, temp, constants.COPYFILE_FICLONE);
    await copyMetadata(temp, stat);
    const there = await lstat(target).catch(() => undefined);
    if (there?.isDirectory()) await rm(target, { recursive: true });
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
