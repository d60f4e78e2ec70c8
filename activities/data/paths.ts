import { posix } from 'node:path';

/**
 * Which node paths a data move may read, write or remove. Pure: the same answer in preflight, copy,
 * verify and remove, and unit-tested message by message.
 */

/** The OS's own trees: neither they nor anything below them is a service's data directory. */
export const SYSTEM_TREES = [
  '/etc', // configuration of the whole host
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32', // programs and libraries
  '/boot', // kernel and boot loader
  '/dev',
  '/proc',
  '/sys',
  '/run',
  '/var/run',
  '/var/lock', // kernel and runtime file systems: not data, and gone at reboot
  '/root', // the superuser's home (keys, credentials): never a service's data
  '/var/lib/docker',
  '/var/lib/containerd', // the container engine's own state: copying it under a running engine corrupts it
  '/var/lib/mesh-runbook', // the runbooks' own state on the node: the baselines that protect moved data
] as const;

/** Directories that hold many services' data: their children may move, they themselves may not. */
export const SHARED_PARENTS = [
  '/var',
  '/var/lib',
  '/var/log',
  '/var/cache',
  '/var/tmp',
  '/srv',
  '/opt',
  '/home',
  '/mnt',
  '/media',
  '/tmp',
] as const;

export type MovePathProblem =
  'relative' | 'too-long' | 'dot-dot' | 'root' | 'system' | 'shared' | 'same' | 'nested';

/** Linux's limits: NAME_MAX bytes for one name, PATH_MAX (with its NUL) for the whole path. */
export const NAME_MAX_BYTES = 255;
export const PATH_MAX_BYTES = 4095;
const SHOWN_CHARS = 40;

function shown(path: string): string {
  return path.length > SHOWN_CHARS ? `${path.slice(0, SHOWN_CHARS)}…` : path;
}

/** Why the system would refuse this path's length (ENAMETOOLONG), as a phrase, or undefined. */
function lengthProblem(path: string): string | undefined {
  const bytes = Buffer.byteLength(path);
  if (bytes > PATH_MAX_BYTES) {
    return `is ${bytes.toLocaleString('en')} bytes long; Linux allows a path at most ${PATH_MAX_BYTES.toLocaleString('en')}`;
  }
  const longest = Math.max(...path.split('/').map((name) => Buffer.byteLength(name)));
  if (longest > NAME_MAX_BYTES) {
    return `has a name of ${longest.toLocaleString('en')} bytes; Linux allows a name at most ${NAME_MAX_BYTES}`;
  }
  return undefined;
}

/** A node path a data move must not use; the message is one sentence an operator can act on. */
export class MovePathError extends Error {
  override readonly name = 'MovePathError';
  constructor(
    readonly problem: MovePathProblem,
    message: string,
  ) {
    super(message);
  }
}

export function isWithin(inner: string, outer: string): boolean {
  return inner === outer || inner.startsWith(outer === '/' ? '/' : `${outer}/`);
}

/**
 * What a normal absolute path is that a data move may not use, as a phrase (`a system path (under
 * /etc)`), or undefined: the rules of `checkNodePath` for a path something resolved to.
 */
export function forbiddenUse(path: string): string | undefined {
  if (path === '/') return 'the whole file system';
  const tree = SYSTEM_TREES.find((system) => isWithin(path, system));
  if (tree) return `a system path (${tree === path ? tree : `under ${tree}`})`;
  if ((SHARED_PARENTS as readonly string[]).includes(path)) return "a directory of other services' data too";
  return undefined;
}

/**
 * One path checked on its own: absolute, no `..`, not `/`, not a system tree, not a shared parent.
 * Returns it normalised (`//` and `.` collapsed, no trailing slash). `role` names it in the message.
 */
export function checkNodePath(role: string, path: string): string {
  if (!path.startsWith('/')) {
    throw new MovePathError(
      'relative',
      `The ${role} "${path}" is relative; give an absolute path such as /srv/forge.`,
    );
  }
  const tooLong = lengthProblem(path);
  if (tooLong) {
    throw new MovePathError('too-long', `The ${role} ${shown(path)} ${tooLong}.`);
  }
  if (path.split('/').includes('..')) {
    throw new MovePathError('dot-dot', `The ${role} ${path} contains "..": give the path without it.`);
  }
  const normal = posix.normalize(path).replace(/(.)\/+$/, '$1');
  if (normal === '/') {
    throw new MovePathError(
      'root',
      `The ${role} is / (the whole file system); give the data directory itself.`,
    );
  }
  const tree = SYSTEM_TREES.find((system) => isWithin(normal, system));
  if (tree) {
    throw new MovePathError(
      'system',
      `The ${role} ${normal} is a system path (${tree === normal ? tree : `under ${tree}`}); data directories belong below /srv, /var/lib, /opt or /home.`,
    );
  }
  if ((SHARED_PARENTS as readonly string[]).includes(normal)) {
    throw new MovePathError(
      'shared',
      `The ${role} ${normal} holds other services' data too; give the service's own directory below it.`,
    );
  }
  return normal;
}

/** A move from A to B: both checked alone, then distinct and neither inside the other. */
export function checkMovePaths(from: string, to: string): { from: string; to: string } {
  const a = checkNodePath('source path', from);
  const b = checkNodePath('target path', to);
  if (a === b) {
    throw new MovePathError('same', `The source and target paths are the same (${a}); nothing would move.`);
  }
  if (isWithin(b, a)) {
    throw new MovePathError(
      'nested',
      `The target path ${b} lies inside the source path ${a}; the copy would copy into itself.`,
    );
  }
  if (isWithin(a, b)) {
    throw new MovePathError(
      'nested',
      `The source path ${a} lies inside the target path ${b}; the target must be a separate, empty directory.`,
    );
  }
  return { from: a, to: b };
}
