import { join } from 'node:path';
import type { CopyProgress } from '../../workflows/contracts';
import { sha256File } from './hash';
import { sameTime } from './metadata';
import { forEachLimit } from './pool';
import { startTicker } from './ticker';
import { inodeKey, scanTree, summarize, type TreeEntry } from './tree';

/**
 * One aspect in which a path of the copy (B) differs from the source (A). `mtime` is compared for files
 * and symlinks at the precision a copy can set (SETTABLE_TIME_NS); a directory's mtime follows its entries,
 * which are compared themselves. `hard links`: the path shares its inode with other paths differently.
 */
export type Difference =
  | 'missing on B'
  | 'only on B'
  | 'type'
  | 'owner'
  | 'link target'
  | 'mode'
  | 'size'
  | 'hard links'
  | 'content'
  | 'mtime';

export interface VerifyResult {
  /** Regular files and their bytes (each inode once) in the copy. */
  files: number;
  bytes: number;
  /** Paths that differ, relative to the roots, sorted; at most MISMATCHES_SHOWN of them. */
  mismatches: string[];
  /** The same paths with the first of what differs, as a phrase (`mode differs`). */
  details: { path: string; problem: string }[];
  /** The same paths with everything that differs, in the order of `Difference`. */
  differences: { path: string; what: Difference[] }[];
  /** How many paths differ in all (more than `mismatches` holds when capped). */
  mismatchCount: number;
}

export const MISMATCHES_SHOWN = 50;
const HASH_LANES = 4;
const ORDER: readonly Difference[] = [
  'missing on B',
  'only on B',
  'type',
  'owner',
  'link target',
  'mode',
  'size',
  'hard links',
  'content',
  'mtime',
];

/** For each regular file, the first path (in walk order) of its inode: equal groups mean equal hard links. */
function linkGroups(entries: readonly TreeEntry[]): Map<string, string> {
  const firstOfInode = new Map<string, string>();
  const groups = new Map<string, string>();
  for (const entry of entries) {
    if (entry.kind !== 'file') continue;
    const key = inodeKey(entry.stat);
    if (!firstOfInode.has(key)) firstOfInode.set(key, entry.rel);
    groups.set(entry.rel, firstOfInode.get(key) as string);
  }
  return groups;
}

/** What differs between two entries of the same path, short of content. */
function metadataDifferences(a: TreeEntry, b: TreeEntry): Difference[] {
  if (a.kind !== b.kind) return ['type'];
  const found: Difference[] = [];
  if (a.stat.uid !== b.stat.uid || a.stat.gid !== b.stat.gid) found.push('owner');
  if (a.kind === 'symlink' && a.target !== b.target) found.push('link target');
  // A symlink's own mode is fixed (0777 on Linux): only other entries' modes are data.
  if (a.kind !== 'symlink' && a.stat.mode !== b.stat.mode) found.push('mode');
  if (a.kind === 'file' && a.stat.size !== b.stat.size) found.push('size');
  if (a.kind !== 'dir' && !sameTime(a.stat.mtimeNs, b.stat.mtimeNs)) found.push('mtime');
  return found;
}

/** The phrase `details` has shown for a path since before `differences`: the first difference. */
function problemPhrase(first: Difference, a: TreeEntry | undefined, b: TreeEntry | undefined): string {
  if (first === 'missing on B') return 'missing';
  if (first === 'only on B') return 'extra';
  if (first === 'type') return `type differs (${a?.kind} vs ${b?.kind})`;
  if (first === 'hard links') return 'hard links differ from the source';
  return `${first} differs`;
}

/** Differences short of content, and the pairs whose content is to be hashed (each source inode once). */
function compareEntries(source: readonly TreeEntry[], copy: readonly TreeEntry[]) {
  const copyByPath = new Map(copy.map((entry) => [entry.rel, entry]));
  const extra = new Set(copyByPath.keys());
  const [groupInSource, groupInCopy] = [linkGroups(source), linkGroups(copy)];
  const found = new Map<string, Difference[]>();
  const toHash: [TreeEntry, TreeEntry][] = [];
  for (const a of source) {
    const b = copyByPath.get(a.rel);
    extra.delete(a.rel);
    if (!b) {
      found.set(a.rel, ['missing on B']);
      continue;
    }
    const differs = metadataDifferences(a, b);
    const group = groupInSource.get(a.rel);
    const sameLinks = group === groupInCopy.get(a.rel);
    if (!sameLinks && a.kind === 'file' && b.kind === 'file') differs.push('hard links');
    if (differs.length > 0) found.set(a.rel, differs);
    const sameSizeFiles = a.kind === 'file' && b.kind === 'file' && a.stat.size === b.stat.size;
    // Hard-linked names share content: hash each inode once, unless B split the group.
    if (sameSizeFiles && (group === a.rel || !sameLinks)) toHash.push([a, b]);
  }
  for (const rel of extra) found.set(rel, ['only on B']);
  return { found, toHash, copyByPath };
}

/**
 * Compares the copy at `to` with `from`: every path, its type, owner, mode, link target, hard-link
 * grouping, size, mtime, and the sha256 of every file's content (streamed, each inode once). Never
 * throws for a difference: the differing paths, and what differs for each, are the result.
 */
export async function verifyTrees(
  from: string,
  to: string,
  onProgress?: (progress: CopyProgress) => void,
  signal?: AbortSignal,
): Promise<VerifyResult> {
  const started = Date.now();
  const done = { files: 0, bytes: 0, totalFiles: 0, totalBytes: 0, scanned: 0 };
  const stopTicker = startTicker(() => {
    const seconds = Math.max((Date.now() - started) / 1000, 0.001);
    onProgress?.({ ...done, bytesPerSecond: Math.round(done.bytes / seconds) });
  });
  try {
    const [source, copy] = await Promise.all([
      scanTree(from, { signal, onEntry: () => done.scanned++ }),
      scanTree(to, { signal, onEntry: () => done.scanned++ }),
    ]);
    const { found, toHash, copyByPath } = compareEntries(source, copy);
    const sourceByPath = new Map(source.map((entry) => [entry.rel, entry]));
    done.totalFiles = toHash.length;
    done.totalBytes = toHash.reduce((sum, [a]) => sum + Number(a.stat.size), 0);
    await forEachLimit(toHash, HASH_LANES, async ([a, b]) => {
      signal?.throwIfAborted();
      const [ha, hb] = await Promise.all([sha256File(join(from, a.rel)), sha256File(join(to, b.rel))]);
      if (ha !== hb) found.set(a.rel, [...(found.get(a.rel) ?? []), 'content']);
      done.files++;
      done.bytes += Number(a.stat.size);
    });
    const differing = [...found.keys()].sort().map((rel) => {
      const what = (found.get(rel) ?? []).sort((x, y) => ORDER.indexOf(x) - ORDER.indexOf(y));
      const problem = problemPhrase(what[0] as Difference, sourceByPath.get(rel), copyByPath.get(rel));
      return { path: rel || '.', what, problem };
    });
    const shown = differing.slice(0, MISMATCHES_SHOWN);
    const copied = summarize(copy);
    return {
      files: copied.files,
      bytes: copied.bytes,
      mismatches: shown.map((d) => d.path),
      details: shown.map(({ path, problem }) => ({ path, problem })),
      differences: shown.map(({ path, what }) => ({ path, what })),
      mismatchCount: differing.length,
    };
  } finally {
    stopTicker();
  }
}
