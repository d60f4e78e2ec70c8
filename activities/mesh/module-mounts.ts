import { posix } from 'node:path';
import type { ModuleSpec } from '../../mesh/schemas';

/** `//a/b/./` → `/a/b`: the spelling paths are compared in. */
export function normalHostPath(path: string): string {
  const normal = posix.normalize(path);
  return normal.length > 1 && normal.endsWith('/') ? normal.slice(0, -1) : normal;
}

/** True when `path` is `dir` or lies below it (`/srv/forge-cache` is not below `/srv/forge`). */
export function isAtOrUnder(path: string, dir: string): boolean {
  const p = normalHostPath(path);
  const d = normalHostPath(dir);
  return p === d || p.startsWith(d === '/' ? '/' : `${d}/`);
}

/** Why a move from `from` to `to` cannot be expressed as a path rewrite, or undefined when it can. */
export function moveProblem(from: string, to: string): string | undefined {
  for (const [name, path] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (!path.startsWith('/')) return `${name} must be an absolute path, not ${JSON.stringify(path)}`;
    if (path.split('/').includes('..')) return `${name} must not contain .., got ${path}`;
  }
  if (isAtOrUnder(from, to) || isAtOrUnder(to, from)) {
    // Rewriting into a path that overlaps the old one would move the moved mounts again on a rerun.
    return `from (${from}) and to (${to}) must be distinct and neither inside the other`;
  }
  return undefined;
}

/** `path` moved from under `from` to under `to`, keeping its sub-path; undefined when it is not under `from`. */
export function movedPath(path: string, from: string, to: string): string | undefined {
  if (!isAtOrUnder(path, from)) return undefined;
  const rest = normalHostPath(path).slice(normalHostPath(from).length).replace(/^\//, '');
  return rest === '' ? normalHostPath(to) : posix.join(normalHostPath(to), rest);
}

export interface MovedMounts {
  spec: ModuleSpec;
  /** Spec names of the containers whose mounts changed, in spec order. */
  changed: string[];
}

/**
 * The spec with every mount host path and data dir at or under `from` moved under `to` (sub-paths kept,
 * a data dir the move makes a duplicate of another dropped). Nothing else changes. Applying it to its own result changes
 * nothing, provided `from` and `to` do not overlap (see `moveProblem`).
 */
export function moveMounts(spec: ModuleSpec, from: string, to: string): MovedMounts {
  const changed: string[] = [];
  const containers = spec.containers.map((container) => {
    let moved = false;
    const mounts = container.mounts.map((mount) => {
      const hostPath = movedPath(mount.hostPath, from, to);
      if (hostPath === undefined) return mount;
      moved = true;
      return { ...mount, hostPath };
    });
    if (!moved) return container;
    changed.push(container.name);
    return { ...container, mounts };
  });
  const dataDirs = [...new Set(spec.dataDirs.map((dir) => movedPath(dir, from, to) ?? dir))];
  return { spec: { ...spec, dataDirs, containers }, changed };
}

/** Spec names of the containers with a mount at or under `path`, in spec order. */
export function containersMountingPath(spec: ModuleSpec, path: string): string[] {
  return spec.containers
    .filter((container) => container.mounts.some((mount) => isAtOrUnder(mount.hostPath, path)))
    .map((container) => container.name);
}
