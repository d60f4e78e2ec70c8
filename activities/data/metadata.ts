import type { BigIntStats } from 'node:fs';
import { chmod, lchown, lstat, lutimes } from 'node:fs/promises';

/** Seconds as a double: what `lutimes` takes. Loses < 1 µs of a nanosecond timestamp. */
const seconds = (ns: bigint): number => Number(ns / 1000n) / 1e6;

/**
 * Gives `path` the owner, permission bits and times of `source`. Owner first (chown clears set-id bits),
 * times last: a file whose mtime matches its source is therefore complete (see `isCopyComplete`).
 */
export async function copyMetadata(path: string, source: BigIntStats): Promise<void> {
  await lchown(path, Number(source.uid), Number(source.gid));
  if (!source.isSymbolicLink()) await chmod(path, Number(source.mode) & 0o7777);
  await lutimes(path, seconds(source.atimeNs), seconds(source.mtimeNs));
}

/** Within what the double seconds of `lutimes` keep of a nanosecond time. */
export function sameTime(a: bigint, b: bigint): boolean {
  const diff = a > b ? a - b : b - a;
  return diff < 2000n;
}

/** True when `path` is a regular file an earlier attempt finished: same size, owner, mode and mtime. */
export async function isCopyComplete(path: string, source: BigIntStats): Promise<boolean> {
  const stat = await lstat(path, { bigint: true }).catch(() => undefined);
  return (
    stat !== undefined &&
    stat.isFile() &&
    stat.size === source.size &&
    stat.mode === source.mode &&
    stat.uid === source.uid &&
    stat.gid === source.gid &&
    sameTime(stat.mtimeNs, source.mtimeNs)
  );
}
