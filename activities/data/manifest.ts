import { z } from 'zod';
import { scanTree, type ScanOptions, type TreeEntry } from './tree';

/**
 * What a path of a data tree was at one moment, enough to tell whether it changed since without content
 * hashes: a write changes size or mtime, and also the inode's change time (ctime) when the writer put size
 * and mtime back (a rewrite in place and `touch -d`), or its inode when it replaced the file. Times are
 * nanosecond strings, as the file system keeps them.
 */
export const ManifestEntry = z.strictObject({
  type: z.enum(['dir', 'file', 'symlink', 'special']),
  size: z.number().int().min(0),
  /** Permission bits (and set-id, sticky); the type is `type`. */
  mode: z.number().int().min(0).max(0o7777),
  uid: z.number().int().min(0),
  gid: z.number().int().min(0),
  mtimeNs: z.string().regex(/^-?\d+$/),
  /** The link's target as written, for symlinks. */
  target: z.string().optional(),
  /** The inode's change time and number; absent from baselines recorded before they were kept. */
  ctimeNs: z
    .string()
    .regex(/^-?\d+$/)
    .optional(),
  ino: z.string().regex(/^\d+$/).optional(),
});
export type ManifestEntry = z.infer<typeof ManifestEntry>;

/** Every path of a tree by its relative path (`''` is the root). */
export const Manifest = z.record(z.string(), ManifestEntry);
export type Manifest = z.infer<typeof Manifest>;

export function manifestEntry({ kind, stat, target }: Omit<TreeEntry, 'rel'>): ManifestEntry {
  return {
    type: kind,
    size: Number(stat.size),
    mode: Number(stat.mode) & 0o7777,
    uid: Number(stat.uid),
    gid: Number(stat.gid),
    mtimeNs: String(stat.mtimeNs),
    ...(target !== undefined ? { target } : {}),
    ctimeNs: String(stat.ctimeNs),
    ino: String(stat.ino),
  };
}

export function manifestOf(entries: readonly TreeEntry[]): Manifest {
  return Object.fromEntries(entries.map((entry) => [entry.rel, manifestEntry(entry)]));
}

export async function scanManifest(root: string, options: ScanOptions = {}): Promise<Manifest> {
  return manifestOf(await scanTree(root, options));
}

/**
 * Whether a path is as it was (both absent counts). A directory's size, times and inode follow its
 * entries, which are compared themselves, so only its owner and mode count. Change time and inode count
 * where both sides have them (a baseline recorded before they were kept has neither).
 */
export function unchanged(before: ManifestEntry | undefined, now: ManifestEntry | undefined): boolean {
  if (before === undefined || now === undefined) return before === now;
  if (before.type !== now.type || before.uid !== now.uid || before.gid !== now.gid) return false;
  if (before.type === 'dir') return before.mode === now.mode;
  return (
    before.mode === now.mode &&
    before.size === now.size &&
    before.mtimeNs === now.mtimeNs &&
    before.target === now.target &&
    sameIfKnown(before.ctimeNs, now.ctimeNs) &&
    sameIfKnown(before.ino, now.ino)
  );
}

function sameIfKnown(before: string | undefined, now: string | undefined): boolean {
  return before === undefined || now === undefined || before === now;
}
