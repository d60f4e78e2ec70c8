import type { BigIntStats } from 'node:fs';
import { lstat, readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { forEachLimit } from './pool';

export type EntryKind = 'dir' | 'file' | 'symlink' | 'special';

/** One entry below a tree's root, with its lstat (bigint: exact inode numbers and nanosecond times). */
export interface TreeEntry {
  /** Relative to the root, `/`-separated; `''` is the root itself. */
  rel: string;
  kind: EntryKind;
  stat: BigIntStats;
  /** The link's target as written, for symlinks. */
  target?: string;
}

export interface TreeSummary {
  files: number;
  /** Bytes of regular files, each inode counted once (hard links share their bytes). */
  bytes: number;
  directories: number;
  symlinks: number;
  /** Sockets, FIFOs and devices: a data move refuses them. */
  special: string[];
}

const STAT_LANES = 16;

export function kindOf(stat: BigIntStats): EntryKind {
  if (stat.isDirectory()) return 'dir';
  if (stat.isFile()) return 'file';
  if (stat.isSymbolicLink()) return 'symlink';
  return 'special';
}

export function inodeKey(stat: BigIntStats): string {
  return `${stat.dev}:${stat.ino}`;
}

async function entryAt(root: string, rel: string): Promise<TreeEntry> {
  const path = join(root, rel);
  const stat = await lstat(path, { bigint: true });
  const kind = kindOf(stat);
  return kind === 'symlink' ? { rel, kind, stat, target: await readlink(path) } : { rel, kind, stat };
}

/** How a scan is watched: `signal` (an activity's cancellation) ends it, `onEntry` counts what it found. */
export interface ScanOptions {
  signal?: AbortSignal | undefined;
  onEntry?: (() => void) | undefined;
}

/**
 * Every entry of the tree at `root` (which must be a directory), parents before children, siblings by
 * name: the same order on every call, so a copy and its verification walk the trees alike. A cancelled
 * scan ends before its next directory; `onEntry` is called for each entry found (progress of long scans).
 */
export async function scanTree(root: string, { signal, onEntry }: ScanOptions = {}): Promise<TreeEntry[]> {
  const entries: TreeEntry[] = [await entryAt(root, '')];
  const walk = async (dir: string): Promise<void> => {
    signal?.throwIfAborted();
    const names = (await readdir(join(root, dir))).sort();
    const children: TreeEntry[] = new Array(names.length);
    await forEachLimit(names, STAT_LANES, async (name, i) => {
      children[i] = await entryAt(root, dir === '' ? name : `${dir}/${name}`);
    });
    for (const child of children) {
      onEntry?.();
      entries.push(child);
      if (child.kind === 'dir') await walk(child.rel);
    }
  };
  await walk('');
  return entries;
}

export function summarize(entries: readonly TreeEntry[]): TreeSummary {
  const summary: TreeSummary = { files: 0, bytes: 0, directories: 0, symlinks: 0, special: [] };
  const seen = new Set<string>();
  for (const entry of entries) {
    if (entry.rel === '') continue;
    if (entry.kind === 'dir') summary.directories++;
    else if (entry.kind === 'symlink') summary.symlinks++;
    else if (entry.kind === 'special') summary.special.push(entry.rel);
    else {
      summary.files++;
      if (seen.has(inodeKey(entry.stat))) continue;
      seen.add(inodeKey(entry.stat));
      summary.bytes += Number(entry.stat.size);
    }
  }
  return summary;
}
