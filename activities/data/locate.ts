import { hostPathOnNode } from '../../docker/placement';
import type { HostRootOf } from '../host-root';
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
 * node path becomes a path here: the worker's own host root for the node (`/` on a real node).
 */
export async function locateMove(
  hostRootOf: HostRootOf,
  { node, from, to }: MoveOnNode,
): Promise<LocatedMove> {
  const paths = checkMovePaths(from, to);
  const hostRoot = await hostRootOf(node);
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
  hostRootOf: HostRootOf,
  node: string,
  role: string,
  path: string,
): Promise<{ path: string; hostRoot: string; host: string }> {
  const checked = checkNodePath(role, path);
  const hostRoot = await hostRootOf(node);
  return { path: checked, hostRoot, host: hostPathOnNode(hostRoot, checked) };
}
