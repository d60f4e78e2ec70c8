import { lstat, readdir, statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import { inodeKey, scanTree, summarize } from './tree';

/** A data move that must not start; the message is one sentence for the operator. */
export class PreflightError extends Error {
  override readonly name = 'PreflightError';
}

export interface MoveSize {
  files: number;
  bytes: number;
  directories: number;
  symlinks: number;
}

/** Room left on the target's file system beyond the source's bytes (block rounding, metadata, logs). */
export const SPACE_MARGIN_BYTES = 64 * 1024 * 1024;
const BLOCK = 4096;

const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(2)} GiB`;

async function lstatOrUndefined(path: string) {
  return lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
    throw error;
  });
}

/** The closest existing ancestor of `path` (itself included), and how many levels up it is. */
async function nearestExisting(path: string): Promise<{ at: string; up: number }> {
  let up = 0;
  for (let at = path; ; at = dirname(at), up++) {
    if ((await lstatOrUndefined(at)) !== undefined || at === dirname(at)) return { at, up };
  }
}

const parentOf = (path: string, up: number): string => (up === 0 ? path : parentOf(dirname(path), up - 1));

/**
 * Checks a move of the directory at host path `from` to `to` (paths already checked by checkMovePaths;
 * `names` are the node paths for the messages): A a real directory with no special files, B absent or
 * empty, enough free space and inodes on B's file system. Returns A's size.
 */
export async function checkMoveOnHost(
  from: string,
  to: string,
  names: { node: string; from: string; to: string },
): Promise<MoveSize> {
  const where = `on node ${names.node}`;
  const source = await lstatOrUndefined(from);
  if (!source) throw new PreflightError(`The source path ${names.from} does not exist ${where}.`);
  if (source.isSymbolicLink())
    throw new PreflightError(
      `The source path ${names.from} is a symbolic link ${where}; give the directory it points to.`,
    );
  if (!source.isDirectory())
    throw new PreflightError(`The source path ${names.from} is not a directory ${where}.`);

  const target = await lstatOrUndefined(to);
  if (target && !target.isDirectory())
    throw new PreflightError(
      `The target path ${names.to} exists ${where} and is not a directory; remove it or choose another path.`,
    );
  if (target) {
    const inside = await readdir(to);
    if (inside.length > 0)
      throw new PreflightError(
        `The target path ${names.to} is not empty ${where} (${inside.length} ${inside.length === 1 ? 'entry' : 'entries'}, e.g. ${inside.sort()[0]}); empty it or choose another path.`,
      );
  }
  const ancestor = await nearestExisting(to);
  if (!(await lstat(ancestor.at)).isDirectory())
    throw new PreflightError(
      `The target path ${names.to} cannot be created ${where}: ${parentOf(names.to, ancestor.up)} is not a directory.`,
    );

  const entries = await scanTree(from);
  const { special, ...size } = summarize(entries);
  if (special.length > 0)
    throw new PreflightError(
      `The source path ${names.from} holds ${special.length} socket(s), FIFO(s) or device(s), e.g. ${special[0]}, that the copy does not move; remove them first.`,
    );
  const inodes = new Map(entries.map((e) => [inodeKey(e.stat), Number(e.stat.size)]));
  const blocks = [...inodes.values()].reduce((sum, bytes) => sum + Math.ceil(bytes / BLOCK) * BLOCK, 0);
  const fs = await statfs(ancestor.at);
  const free = fs.bavail * fs.bsize;
  if (free < blocks + SPACE_MARGIN_BYTES)
    throw new PreflightError(
      `The file system of ${names.to} ${where} has ${gib(free)} free but ${names.from} needs ${gib(blocks)} (plus ${gib(SPACE_MARGIN_BYTES)} to spare).`,
    );
  // btrfs and others allocate inodes on demand and report none: only a fixed inode table can run out.
  if (fs.files > 0 && fs.ffree < inodes.size)
    throw new PreflightError(
      `The file system of ${names.to} ${where} has ${fs.ffree} free inodes but ${names.from} needs ${inodes.size}.`,
    );
  return size;
}
