import { hostPathOnNode } from '../../docker/placement';
import type { MeshPort } from '../../mesh/port';
import { checkMovePaths, checkNodePath } from './paths';

/** A move of node `node`'s data from host path `from` (A) to `to` (B), both as the node names them. */
export interface MoveOnNode {
  node: string;
  from: string;
  to: string;
}

/** A move's paths, checked and normalised, and where they are on this machine. */
export interface LocatedMove {
  node: string;
  from: string;
  to: string;
  /** The node's host root: `/` for a real node, a directory here for a local one. */
  hostRoot: string;
  hostFrom: string;
  hostTo: string;
}

/**
 * A and B checked, and where they live on this machine through the node's host root. The one place a
 * node path becomes a path here (a per-node worker would map it to itself).
 */
export async function locateMove(mesh: MeshPort, { node, from, to }: MoveOnNode): Promise<LocatedMove> {
  const paths = checkMovePaths(from, to);
  const { hostRoot } = await mesh.nodeState(node);
  return {
    node,
    ...paths,
    hostRoot,
    hostFrom: hostPathOnNode(hostRoot, paths.from),
    hostTo: hostPathOnNode(hostRoot, paths.to),
  };
}

/** One node path, checked (`role` names it in a refusal), and where it is on this machine. */
export async function locatePath(
  mesh: MeshPort,
  node: string,
  role: string,
  path: string,
): Promise<{ path: string; hostRoot: string; host: string }> {
  const checked = checkNodePath(role, path);
  const { hostRoot } = await mesh.nodeState(node);
  return { path: checked, hostRoot, host: hostPathOnNode(hostRoot, checked) };
}
