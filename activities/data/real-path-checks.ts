import { forbiddenUse, isWithin } from './paths';
import { PreflightError } from './preflight';
import { resolveNodePath, throughLink, type ResolvedNodePath } from './real-paths';

/**
 * Refuses a path that a symlink sends outside the node's host root or into a tree a data move may not
 * use (the rules of `checkNodePath`, applied to where the path really is). `role` names it.
 */
function refuseWhereItLands(role: string, resolved: ResolvedNodePath, node: string, hostRoot: string): void {
  const where = `The ${role} ${resolved.path} on node ${node}`;
  const via = throughLink(resolved);
  if (resolved.onNode === undefined)
    throw new PreflightError(
      `${where} resolves to ${resolved.real}, outside the node's host root ${hostRoot}${via}; give the directory itself.`,
    );
  const forbidden = forbiddenUse(resolved.onNode);
  if (forbidden)
    throw new PreflightError(
      `${where} resolves to ${resolved.onNode}${via}, ${forbidden}; give the data directory itself.`,
    );
}

/**
 * A move's A and B where they really are: neither may resolve outside the host root or into a system
 * tree, and after resolution neither may lie inside the other (a symlink up B's tree can put B inside A).
 */
export async function checkResolvedMove(
  hostRoot: string,
  names: { node: string; from: string; to: string },
): Promise<void> {
  const [a, b] = await Promise.all([
    resolveNodePath(hostRoot, names.from),
    resolveNodePath(hostRoot, names.to),
  ]);
  refuseWhereItLands('source path', a, names.node, hostRoot);
  refuseWhereItLands('target path', b, names.node, hostRoot);
  const [realA, realB] = [a.onNode as string, b.onNode as string];
  const via = throughLink(b, a);
  if (isWithin(b.real, a.real))
    throw new PreflightError(
      `The target path ${names.to} on node ${names.node} resolves to ${realB}${via}, inside the source path ${names.from} (${realA}); the copy would copy into itself.`,
    );
  if (isWithin(a.real, b.real))
    throw new PreflightError(
      `The source path ${names.from} on node ${names.node} resolves to ${realA}${via}, inside the target path ${names.to} (${realB}); the target must be a separate, empty directory.`,
    );
}

/** A path about to be removed, where it really is: refused outside the host root or in a system tree. */
export async function checkResolvedRemoval(
  hostRoot: string,
  node: string,
  path: string,
): Promise<ResolvedNodePath> {
  const resolved = await resolveNodePath(hostRoot, path);
  refuseWhereItLands('path to remove', resolved, node, hostRoot);
  return resolved;
}
