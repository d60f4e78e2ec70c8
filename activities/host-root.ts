import type { MeshPort } from '../mesh/port';

/**
 * Where node `node`'s host paths are on the machine this worker runs on: `/` for the worker on a real node,
 * a directory per node for the local reference mesh. It is the worker's own setting, never a guess.
 */
export type HostRootOf = (node: string) => Promise<string>;

/**
 * Where mesh says a node's host paths are: what a worker serving no node queue of its own answers.
 */
export function hostRootFromMesh(mesh: MeshPort): HostRootOf {
  return async (node) => (await mesh.nodeState(node)).hostRoot;
}

/** One host root for every node this worker serves (its `--host-root`). */
export function fixedHostRoot(hostRoot: string): HostRootOf {
  return () => Promise.resolve(hostRoot);
}
