import { constants } from 'node:fs';
import { copyFile, link, lstat, mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { CopyProgress } from '../../workflows/contracts';
import { copyMetadata, isCopyComplete } from './metadata';
import { clearSlot, ensureDirectory, hasEntries, removeExtras } from './mirror';
import { PreflightError } from './preflight';
import { forEachLimit } from './pool';
import { startTicker } from './ticker';
import { inodeKey, scanTree, summarize, type TreeEntry } from './tree';

export interface CopyResult {
  files: number;
  bytes: number;
  /** Bytes this attempt wrote; less than `bytes` when it resumed an earlier attempt's copy. */
  bytesCopiedThisAttempt: number;
  resumed: boolean;
  /** Bytes of whole files the earlier attempt reported done (its last heartbeat); 0 when not resumed. */
  resumedFromBytes: number;
  seconds: number;
}

export interface CopyOptions {
  signal?: AbortSignal;
  /** How often `onProgress` is called while copying (default 1 s). */
  progressEveryMs?: number;
  /** Regular files copied at once (default FILE_LANES). */
  lanes?: number;
}

/** Regular files copied at once: enough to keep the thread pool and the disk busy on small files. */
export const FILE_LANES = 16;

/** The order a copy writes in: directories, each inode's content once, its other names, symlinks. */
function planCopy(entries: readonly TreeEntry[]) {
  const firstOfInode = new Map<string, TreeEntry>();
  const contents: TreeEntry[] = [];
  const links: [TreeEntry, TreeEntry][] = [];
  for (const entry of entries.filter((e) => e.kind === 'file')) {
    const first = firstOfInode.get(inodeKey(entry.stat));
    if (first) {
      links.push([entry, first]);
    } else {
      firstOfInode.set(inodeKey(entry.stat), entry);
      contents.push(entry);
    }
  }
  const dirs = entries.filter((e) => e.kind === 'dir');
  return { dirs, contents, links, symlinks: entries.filter((e) => e.kind === 'symlink') };
}

/**
 * Copies the tree at `from` to `to` (created if absent) with owners, modes, times, symlinks as links and
 * hard links as links within `to`. Cancelled (`options.signal`), it writes nothing more once the files in
 * flight are done, and only then rejects. With `resumeFrom` (an earlier attempt's last progress) files already
 * complete in `to` are kept; without it every file is written again. When `to` held anything, what is
 * there is replaced rather than written through, and what the source lacks is removed: `to` ends up a
 * mirror of `from`. Special files are refused.
 */
export async function copyTreeWithResume(
  from: string,
  to: string,
  resumeFrom?: CopyProgress,
  onProgress?: (progress: CopyProgress) => void,
  options: CopyOptions = {},
): Promise<CopyResult> {
  const started = Date.now();
  const resumed = resumeFrom !== undefined;
  const done = { files: 0, bytes: 0, copied: 0, totalFiles: 0, totalBytes: 0, scanned: 0 };
  const stopTicker = startTicker(() => {
    const seconds = Math.max((Date.now() - started) / 1000, 0.001);
    const { copied, ...counts } = done;
    onProgress?.({ ...counts, bytesPerSecond: Math.round(copied / seconds) });
  }, options.progressEveryMs);
  const target = (entry: TreeEntry) => join(to, entry.rel);
  const checkCancelled = () => options.signal?.throwIfAborted();
  try {
    const entries = await scanTree(from, { signal: options.signal, onEntry: () => done.scanned++ });
    const summary = summarize(entries);
    if (summary.special.length > 0)
      throw new PreflightError(
        `${from} holds sockets, FIFOs or devices the copy does not move: ${summary.special[0]}`,
      );
    [done.totalFiles, done.totalBytes] = [summary.files, summary.bytes];
    const used = await hasEntries(to);
    const plan = planCopy(entries);

    for (const dir of plan.dirs) {
      checkCancelled();
      await (used ? ensureDirectory(target(dir)) : mkdir(target(dir), { recursive: true }));
    }
    await forEachLimit(plan.contents, options.lanes ?? FILE_LANES, async (entry) => {
      checkCancelled();
      const size = Number(entry.stat.size);
      if (!(resumed && (await isCopyComplete(target(entry), entry.stat)))) {
        if (used) await clearSlot(target(entry));
        await copyFile(join(from, entry.rel), target(entry), constants.COPYFILE_FICLONE);
        await copyMetadata(target(entry), entry.stat);
        done.copied += size;
      }
      done.files++;
      done.bytes += size;
    });
    for (const [entry, first] of plan.links) {
      checkCancelled();
      if (!(resumed && (await sameInode(target(entry), target(first))))) {
        if (used) await clearSlot(target(entry));
        await link(target(first), target(entry));
      }
      done.files++;
    }
    for (const entry of plan.symlinks) {
      checkCancelled();
      if (used) await clearSlot(target(entry));
      await symlink(entry.target as string, target(entry));
      await copyMetadata(target(entry), entry.stat);
    }
    checkCancelled();
    if (used) await removeExtras(to, new Set(entries.map((e) => e.rel)));
    // Children change their directory's mtime, so directories get theirs last, deepest first.
    for (const dir of plan.dirs.reverse()) {
      checkCancelled();
      await copyMetadata(target(dir), dir.stat);
    }
  } finally {
    stopTicker();
  }
  const { files, bytes, copied } = done;
  return {
    files,
    bytes,
    bytesCopiedThisAttempt: copied,
    resumed,
    resumedFromBytes: resumeFrom?.bytes ?? 0,
    seconds: (Date.now() - started) / 1000,
  };
}

async function sameInode(a: string, b: string): Promise<boolean> {
  const [sa, sb] = await Promise.all([
    lstat(a, { bigint: true }).catch(() => undefined),
    lstat(b, { bigint: true }),
  ]);
  return sa !== undefined && sa.ino === sb.ino && sa.dev === sb.dev;
}
