import { posix } from 'node:path';
import { LABEL } from './labels';

/** Where and as what a container spec runs: its engine-wide name, its owner labels, its host paths. */
export interface Placement {
  name: string;
  labels: Record<string, string>;
  /** Maps a spec host path to the real path on this engine's machine (identity for a real node). */
  hostPath?: (specPath: string) => string;
}

/**
 * Where a spec host path lives on this machine for a node whose host paths are rooted at `hostRoot`
 * (`/` for a real node). Verifiers use it for the expected `Mounts[].Source`.
 */
export function hostPathOnNode(hostRoot: string, specPath: string): string {
  const joined = posix.join(hostRoot, specPath);
  return joined.length > 1 && joined.endsWith('/') ? joined.slice(0, -1) : joined;
}

/** Several nodes share one engine, so a container's engine-wide name says whose it is. */
export function containerName(node: string, module: string, container: string): string {
  return `${node}.${module}.${container}`;
}

export function containerLabels(node: string, module: string, container: string): Record<string, string> {
  return { [LABEL.node]: node, [LABEL.module]: module, [LABEL.container]: container };
}

/** How a module's container runs on a node: its engine-wide name, its labels, its host paths. */
export function placementOn(node: string, hostRoot: string, module: string, container: string): Placement {
  return {
    name: containerName(node, module, container),
    labels: containerLabels(node, module, container),
    hostPath: (specPath) => hostPathOnNode(hostRoot, specPath),
  };
}
