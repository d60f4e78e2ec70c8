import { posix } from 'node:path';
import { z } from 'zod';
import type { DockerEngine } from '../../docker/engine';
import { hostPathOnNode } from '../../docker/placement';
import type { HostRootOf } from '../host-root';
import { ownerOf } from '../../docker/container-labels';
import type { MeshPort } from '../../mesh/port';
import { AbsolutePath, Name } from '../../mesh/schemas';
import { isWithin } from '../data/paths';
import { resolveHostPath } from '../data/real-paths';
import { parseActivityInput } from '../failures';
import { sourceOnNode } from './mount-paths';

export const PathOnNode = z.strictObject({ node: Name, path: AbsolutePath });
export type PathOnNode = z.infer<typeof PathOnNode>;

/** A container with a bind mount at or under a path: whose it is (by its mesh's labels, if any) and the mount. */
export interface PathUser {
  name: string;
  id: string;
  state: string;
  module?: string;
  node?: string;
  /** The mount's source as the node names it. */
  source: string;
}

const byNameThenSource = (x: PathUser, y: PathUser) =>
  x.name === y.name ? (x.source < y.source ? -1 : 1) : x.name < y.name ? -1 : 1;

/**
 * Every container on the node's Docker engine, in any state and whoever made it (another module, an
 * orphan, something started by hand), with a bind mount whose source is at or under `path`: compared as
 * spelled and after resolving symlinks on both sides. One row per such mount.
 */
export async function containersUsingPath(
  deps: { mesh: MeshPort; hostRootOf: HostRootOf; dockerFor(node: string): DockerEngine },
  input: PathOnNode,
): Promise<PathUser[]> {
  const { node, path } = parseActivityInput('containersUsingPath', PathOnNode, input);
  const hostRoot = await deps.hostRootOf(node);
  const spelled = hostPathOnNode(hostRoot, path);
  const { real } = await resolveHostPath(spelled);
  const users: PathUser[] = [];
  for (const container of await deps.dockerFor(node).listAll()) {
    for (const mount of container.Mounts ?? []) {
      if (mount.Type !== 'bind') continue;
      const asSpelled = posix.normalize(mount.Source).replace(/(.)\/$/, '$1');
      const resolved = (await resolveHostPath(mount.Source)).real;
      if (![asSpelled, resolved].some((source) => isWithin(source, spelled) || isWithin(source, real)))
        continue;
      const { module, node: owner } = ownerOf(deps.mesh.containerLabels, container.Labels, node);
      users.push({
        name: (container.Names[0] ?? container.Id).replace(/^\//, ''),
        id: container.Id,
        state: container.State,
        ...(module !== undefined ? { module } : {}),
        ...(owner !== undefined ? { node: owner } : {}),
        source: sourceOnNode(hostRoot, mount.Source),
      });
    }
  }
  return users.sort(byNameThenSource);
}
