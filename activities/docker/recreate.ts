import type { DockerEngine } from '../../docker/engine';
import { specHash } from '../../docker/container-options';
import { placementOn } from '../../docker/placement';
import type { MeshPort } from '../../mesh/port';
import type { HostRootOf } from '../host-root';
import type { ContainerSpec } from '../../mesh/schemas';
import { refusalsAreFinal } from '../failures';
import { heartbeat } from '../heartbeat';
import { ambiguousContainers, imageMissing } from './failures';
import { findModuleContainers, type LabelledContainer } from './module-containers';
import { parseNamedTarget, type ContainersOnNode } from './start-stop';

function statusOf(error: unknown): number | undefined {
  return (error as { statusCode?: number } | null)?.statusCode;
}

/** Running, and created from exactly this container spec: nothing to recreate. */
function isCurrent(found: LabelledContainer | undefined, spec: ContainerSpec): boolean {
  return found !== undefined && found.state === 'running' && found.specHash === specHash(spec);
}

/**
 * Removes each named container of the module on the node and creates and starts it again from the
 * module's CURRENT spec, as the local mesh names and labels it (`placementOn`, host paths under the
 * node's `hostRoot`), so it mounts the spec's current host paths. Returns the Docker names recreated.
 *
 * This acts on the node's Docker engine directly, not through mesh: the mesh port has no recreate verb,
 * and a push leaves a running container as it is even when its spec changed (docs/design.md §1, incident 2).
 * It does not take the local mesh's node lock; the runbook calls it only between pushes, after the
 * node reported its apply, so no agent is changing the same containers.
 *
 * Idempotent: a container that runs and carries the spec hash of its current spec is left alone; one
 * that is missing (e.g. removed by an earlier attempt that then died) is created. Two containers with the
 * same module container's labels fail the activity (which one is meant is unclear).
 */
export async function recreateContainers(
  deps: { mesh: MeshPort; dockerFor(node: string): DockerEngine; hostRootOf: HostRootOf },
  input: ContainersOnNode,
): Promise<{ recreated: string[] }> {
  const target = await parseNamedTarget('recreateContainers', deps.mesh, input);
  const { node, module, containers, spec } = target;
  const hostRoot = await refusalsAreFinal(() => deps.hostRootOf(node));
  const engine = deps.dockerFor(node);
  const recreated: string[] = [];
  for (const name of containers) {
    const containerSpec = spec.containers.find((c) => c.name === name);
    if (!containerSpec) throw new Error(`${module}/${name} vanished from the spec it was checked against`);
    const matches = await findModuleContainers(engine, node, module, name);
    if (matches.length > 1) {
      throw ambiguousContainers(
        node,
        module,
        name,
        matches.map((m) => m.name),
      );
    }
    if (isCurrent(matches[0], containerSpec)) continue;

    const placement = placementOn(node, hostRoot, module, name);
    heartbeat({ node, module, recreating: placement.name });
    for (const old of matches) await engine.remove(old.id);
    try {
      await engine.createAndStart(containerSpec, placement);
    } catch (error) {
      if (statusOf(error) === 404 && !(await engine.inspectImage(containerSpec.image)))
        throw imageMissing(node, module, name, containerSpec.image);
      throw error;
    }
    recreated.push(placement.name);
  }
  return { recreated };
}
