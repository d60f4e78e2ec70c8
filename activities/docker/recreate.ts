import type { DockerEngine } from '../../docker/engine';
import type { MeshPort } from '../../mesh/port';
import type { ContainerSpec } from '../../mesh/schemas';
import { waitForApplyReport } from '../../mesh/wait-for-apply';
import { compareMounts } from '../../workflows/verdict/containers';
import type { HostRootOf } from '../host-root';
import { refusalsAreFinal } from '../failures';
import { activitySignal, heartbeat } from '../../base/activity-heartbeat';
import { ambiguousContainers } from './failures';
import { findModuleContainers, type ModuleContainersAt } from './module-containers';
import { bindMountsOnNode } from './mount-paths';
import { containersAt, parseNamedTarget, type ContainersOnNode } from './start-stop';

type RecreateDeps = { mesh: MeshPort; dockerFor(node: string): DockerEngine; hostRootOf: HostRootOf };

/** How long the legacy recreate waits for the node to apply the push that recreates its containers. */
const APPLY_WAIT_MS = 90_000;

/** Whether the container mounts exactly what its spec asks for now, as the node names its host paths. */
async function onCurrentSpec(
  at: ModuleContainersAt,
  id: string,
  spec: ContainerSpec,
  hostRoot: string,
): Promise<boolean> {
  const info = await at.engine.inspect(id);
  if (!info) return false;
  const desired = spec.mounts.map((m) => ({ source: m.hostPath, destination: m.containerPath }));
  return compareMounts(desired, bindMountsOnNode(hostRoot, info.Mounts), []).length === 0;
}

/**
 * Removes each named container of the module on the node that does not mount what the module's current
 * spec asks for, so that the next push has the mesh create it again from that spec: named, labelled and
 * configured (restart policy, limits, logs) the mesh's own way. The runbook never creates a container
 * itself: one made behind the controller's back is one its next push or roll-out brings back beside it
 * (two writers on the new path, or a port clash). A container already on the current spec is left for
 * the push to start. Idempotent: what is gone already counts as removed. Returns the Docker names removed.
 */
export async function removeStaleContainers(
  deps: RecreateDeps,
  input: ContainersOnNode,
): Promise<{ removed: string[] }> {
  const { removed } = await removeStale(deps, input);
  return { removed: removed.map((c) => c.name) };
}

/** The stale containers removed (Docker and spec names), and the spec names with no container at all. */
async function removeStale(
  deps: RecreateDeps,
  input: ContainersOnNode,
): Promise<{ removed: { name: string; container: string }[]; missing: string[] }> {
  const target = await parseNamedTarget('removeStaleContainers', deps.mesh, input);
  const { node, module, containers, spec } = target;
  const hostRoot = await refusalsAreFinal(() => deps.hostRootOf(node));
  const at = containersAt(deps, node);
  const removed: { name: string; container: string }[] = [];
  const missing: string[] = [];
  for (const name of containers) {
    const containerSpec = spec.containers.find((c) => c.name === name);
    if (!containerSpec) throw new Error(`${module}/${name} vanished from the spec it was checked against`);
    const matches = await findModuleContainers(at, node, module, name);
    if (matches.length > 1) {
      const names = matches.map((m) => m.name);
      throw ambiguousContainers(node, module, name, names);
    }
    const [found] = matches;
    if (!found) missing.push(name);
    if (!found || (await onCurrentSpec(at, found.id, containerSpec, hostRoot))) continue;
    heartbeat({ node, module, removing: found.name });
    await at.engine.remove(found.id);
    removed.push({ name: found.name, container: name });
  }
  return { removed, missing };
}

/**
 * What runbooks recorded before recreate went through mesh still call: the stale containers removed, then
 * a push through mesh that has the node's agent create them from the current spec, and its report awaited.
 * Returns the Docker names of those removed or missing that the push made (the mesh's, by its labels).
 */
export async function recreateContainers(
  deps: RecreateDeps,
  input: ContainersOnNode,
): Promise<{ recreated: string[] }> {
  const { node, module } = input;
  const stale = await removeStale(deps, input);
  const remade = [...stale.removed.map((c) => c.container), ...stale.missing];
  if (remade.length === 0) return { recreated: [] };
  const receipt = await refusalsAreFinal(() => deps.mesh.push(node));
  await waitForApplyReport(deps.mesh, node, receipt.pushId, {
    timeoutMs: APPLY_WAIT_MS,
    signal: activitySignal(),
    onPoll: () => heartbeat({ node, module, waitingFor: receipt.pushId }),
  });
  const found = await findModuleContainers(containersAt(deps, node), node, module);
  return {
    recreated: found.filter((c) => c.container && remade.includes(c.container)).map((c) => c.name),
  };
}
