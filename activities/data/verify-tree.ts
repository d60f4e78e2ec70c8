import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import type { CopyProgress } from '../../workflows/contracts';
import { forEachLimit } from './pool';
import { startTicker } from './ticker';
import { inodeKey, scanTree, summarize, type TreeEntry } from './tree';

export interface VerifyResult {
  /** Regular files and their bytes (each inode once) in the copy. */
  files: number;
  bytes: number;
  /** Paths that differ, relative to the roots, sorted; at most MISMATCHES_SHOWN of them. */
  mismatches: string[];
  /** The same paths with what differs: missing, extra, type, owner, mode, link target, hard link, size, content. */
  details: { path: string; problem: string }[];
  /** How many paths differ in all (more than `mismatches` holds when capped). */
  mismatchCount: number;
}

export const MISMATCHES_SHOWN = 50;
const HASH_LANES = 4;

async function sha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

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

/** What differs between two entries short of content; undefined when only hashing can tell. */
function metadataProblem(a: TreeEntry, b: TreeEntry): string | undefined {
  if (a.kind !== b.kind) return `type differs (${a.kind} vs ${b.kind})`;
  if (a.stat.uid !== b.stat.uid || a.stat.gid !== b.stat.gid) return 'owner differs';
  if (a.kind === 'symlink') return a.target === b.target ? undefined : 'link target differs';
  if (a.stat.mode !== b.stat.mode) return 'mode differs';
  if (a.kind === 'file' && a.stat.size !== b.stat.size) return 'size differs';
  return undefined;
}

/** Differences short of content, and the pairs whose content is to be hashed (each inode once). */
function compareEntries(source: readonly TreeEntry[], copy: readonly TreeEntry[]) {
  const copyByPath = new Map(copy.map((entry) => [entry.rel, entry]));
  const extra = new Set(copyByPath.keys());
  const [groupInSource, groupInCopy] = [linkGroups(source), linkGroups(copy)];
  const problems = new Map<string, string>();
  const toHash: [TreeEntry, TreeEntry][] = [];
  for (const a of source) {
    const b = copyByPath.get(a.rel);
    extra.delete(a.rel);
    const group = groupInSource.get(a.rel);
    const problem = !b
      ? 'missing'
      : (metadataProblem(a, b) ??
        (group === groupInCopy.get(a.rel) ? undefined : 'hard links differ from the source'));
    if (problem) problems.set(a.rel, problem);
    else if (b && a.kind === 'file' && group === a.rel) toHash.push([a, b]);
  }
  for (const rel of extra) problems.set(rel, 'extra');
  return { problems, toHash };
}

/**
 * Compares the copy at `to` with `from`: every path, its type, owner, mode, link target, hard-link
 * grouping, size, and the sha256 of every file's content (streamed, each inode once). Never throws
 * for a difference: the differing paths are the result.
 */
export async function verifyTrees(
  from: string,
  to: string,
  onProgress?: (progress: CopyProgress) => void,
): Promise<VerifyResult> {
  const started = Date.now();
  const done = { files: 0, bytes: 0, totalFiles: 0, totalBytes: 0 };
  const stopTicker = startTicker(() => {
    const seconds = Math.max((Date.now() - started) / 1000, 0.001);
    onProgress?.({ ...done, bytesPerSecond: Math.round(done.bytes / seconds) });
  });
  try {
    const [source, copy] = await Promise.all([scanTree(from), scanTree(to)]);
    const { problems, toHash } = compareEntries(source, copy);
    done.totalFiles = toHash.length;
    done.totalBytes = toHash.reduce((sum, [a]) => sum + Number(a.stat.size), 0);
    await forEachLimit(toHash, HASH_LANES, async ([a, b]) => {
      const [ha, hb] = await Promise.all([sha256(join(from, a.rel)), sha256(join(to, b.rel))]);
      if (ha !== hb) problems.set(a.rel, 'content differs');
      done.files++;
      done.bytes += Number(a.stat.size);
    });
    const differing = [...problems.keys()]
      .sort()
      .map((rel) => ({ path: rel || '.', problem: problems.get(rel) ?? '' }));
    const shown = differing.slice(0, MISMATCHES_SHOWN);
    const copied = summarize(copy);
    return {
      files: copied.files,
      bytes: copied.bytes,
      mismatches: shown.map((d) => d.path),
      details: shown,
      mismatchCount: differing.length,
    };
  } finally {
    stopTicker();
  }
}
