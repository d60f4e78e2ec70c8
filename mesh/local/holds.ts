import type { ContainerSpec } from '../schemas';

/** What the node agent knows about a data dir when it decides whether to touch it. */
export interface DirFacts {
  adopted: boolean;
  taken: boolean;
  existsOnDisk: boolean;
  /** Mesh created this dir itself on this node earlier. */
  owned: boolean;
}

/** On an adopted node, data mesh did not create is held until the module is taken (docs/design.md §2). */
export function isDirHeld({ adopted, taken, existsOnDisk, owned }: DirFacts): boolean {
  return adopted && !taken && existsOnDisk && !owned;
}

export function dirHoldReason(module: string, path: string): string {
  return `found ${path} on this adopted node; not touched until ${module} is taken`;
}

/** The held dir this container would mount (its mount is the dir, inside it, or contains it), if any. */
export function heldDirMountedBy(container: ContainerSpec, heldDirs: string[]): string | undefined {
  for (const mount of container.mounts) {
    const held = heldDirs.find((dir) => pathsOverlap(mount.hostPath, dir));
    if (held !== undefined) return held;
  }
  return undefined;
}

export function containerHoldReason(module: string, heldDir: string): string {
  return `would mount ${heldDir}, found on this adopted node; not run until ${module} is taken`;
}

/** True when one path is the other or lies below it. */
export function pathsOverlap(a: string, b: string): boolean {
  const within = (inner: string, outer: string) =>
    inner === outer || inner.startsWith(outer.endsWith('/') ? outer : `${outer}/`);
  return within(a, b) || within(b, a);
}
