import type { BigIntStats } from 'node:fs';
import { chmod, lchown, lstat, lutimes } from 'node:fs/promises';

/**
 * The finest time a copy can set. Node 20 sets times only through libuv (`utimes`, `lutimes`,
 * `futimes`), which takes a double of seconds and truncates it to whole microseconds before calling
 * utimensat (`uv__fs_to_timespec`): the nanoseconds below a microsecond cannot be set from Node. Copies
 * keep times to the microsecond exactly, and every comparison of times is made at that precision.
 */
export const SETTABLE_TIME_NS = 1000n;

/**
 * Seconds as a double aimed at the middle of `ns`'s microsecond: the double is within 0.25 µs of it for
 * any date before 2106, so libuv's truncation lands on exactly that microsecond.
 */
function settableSeconds(ns: bigint): number {
  const micros = ns / SETTABLE_TIME_NS;
  return Number(micros / 1_000_000n) + (Number(micros % 1_000_000n) + 0.5) / 1e6;
}

/**
 * Gives `path` the owner, permission bits and times of `source`. Owner first (chown clears set-id bits),
 * times last: a file whose mtime matches its source is therefore complete (see `isCopyComplete`).
 */
export async function copyMetadata(path: string, source: BigIntStats): Promise<void> {
  await lchown(path, Number(source.uid), Number(source.gid));
  if (!source.isSymbolicLink()) await chmod(path, Number(source.mode) & 0o7777);
  await lutimes(path, settableSeconds(source.atimeNs), settableSeconds(source.mtimeNs));
}

/** The same time as far as a copy can set it (SETTABLE_TIME_NS). */
export function sameTime(a: bigint, b: bigint): boolean {
  return a / SETTABLE_TIME_NS === b / SETTABLE_TIME_NS;
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
