import { lstat, readlink } from 'node:fs/promises';
import { posix } from 'node:path';
import { hostPathOnNode } from '../../docker/placement';
import { sourceOnNode } from '../docker/mount-paths';
import { isWithin } from './paths';

/** A symbolic link met while resolving a path: where it is and its target as written. */
export interface LinkOnTheWay {
  at: string;
  target: string;
}

/** Symlinks followed before a path is given up as a loop (Linux's own limit). */
const MAX_LINKS = 40;

/**
 * The path on this machine with every symbolic link resolved, component by component, as the kernel
 * would; components that do not exist (yet) are kept as spelled (`realpath -m`). Also the links met.
 */
export async function resolveHostPath(path: string): Promise<{ real: string; links: LinkOnTheWay[] }> {
  const todo = path.split('/').filter((part) => part !== '');
  const links: LinkOnTheWay[] = [];
  let real = '/';
  while (todo.length > 0) {
    const part = todo.shift() as string;
    if (part === '.') continue;
    if (part === '..') {
      real = posix.dirname(real);
      continue;
    }
    const next = posix.join(real, part);
    const stat = await lstat(next).catch(() => undefined);
    if (!stat?.isSymbolicLink()) {
      real = next;
      continue;
    }
    if (links.length >= MAX_LINKS) throw new Error(`${path}: too many levels of symbolic links`);
    const target = await readlink(next);
    links.push({ at: next, target });
    todo.unshift(...target.split('/').filter((p) => p !== ''));
    if (target.startsWith('/')) real = '/';
  }
  return { real, links };
}

/** A node path resolved on this machine (see resolveNodePath). */
export interface ResolvedNodePath {
  /** As spelled by the caller. */
  path: string;
  /** Where it really is on this machine. */
  real: string;
  /** Where it really is as the node names it; undefined when that is outside the node's host root. */
  onNode: string | undefined;
  /** The first symbolic link below the host root the resolution went through, named as the node does. */
  link: LinkOnTheWay | undefined;
}

/**
 * Resolves a node path through the node's host root (`/` for a real node): where a read, a copy or a
 * removal of it would really land, and the first symlink that sent it elsewhere.
 */
export async function resolveNodePath(hostRoot: string, path: string): Promise<ResolvedNodePath> {
  const { real: root } = await resolveHostPath(hostRoot);
  const { real, links } = await resolveHostPath(hostPathOnNode(root, path));
  const inside = (host: string) => isWithin(host, root);
  const first = links.find((link) => inside(link.at));
  return {
    path,
    real,
    onNode: inside(real) ? sourceOnNode(root, real) : undefined,
    link: first && { at: sourceOnNode(root, first.at), target: first.target },
  };
}

/** ` through the symbolic link /srv/app → /etc`, or nothing when no link was involved. */
export function throughLink(...resolved: ResolvedNodePath[]): string {
  const link = resolved.find((r) => r.link !== undefined)?.link;
  return link ? ` through the symbolic link ${link.at} → ${link.target}` : '';
}
