import type Dockerode from 'dockerode';
import type { Mount } from '../../workflows/verdict/evidence';

/** `//a/b/` → `/a/b`. */
function tidy(path: string): string {
  const collapsed = path.replace(/\/+/g, '/');
  return collapsed.length > 1 ? collapsed.replace(/\/$/, '') : collapsed;
}

/**
 * A bind source as a host path on the node: the engine's `Mounts[].Source` with the node's `hostRoot`
 * stripped (`/` for a real node leaves it unchanged). A source outside `hostRoot` is returned as the
 * engine's path, so the mismatch shows (it could only coincide with a desired path of the same spelling).
 */
export function sourceOnNode(hostRoot: string, engineSource: string): string {
  const root = tidy(hostRoot);
  const source = tidy(engineSource);
  if (root === '/') return source;
  if (source === root) return '/';
  return source.startsWith(`${root}/`) ? source.slice(root.length) : source;
}

/** The container's bind mounts as node host paths, sorted by destination. Volumes and tmpfs are not binds. */
export function bindMountsOnNode(
  hostRoot: string,
  mounts: Dockerode.ContainerInspectInfo['Mounts'],
): Mount[] {
  return mounts
    .filter((m) => m.Type === 'bind')
    .map((m) => ({ source: sourceOnNode(hostRoot, m.Source), destination: m.Destination }))
    .sort((a, b) => (a.destination < b.destination ? -1 : a.destination > b.destination ? 1 : 0));
}
