import { z } from 'zod';
import type { DockerEngine } from '../../docker/engine';
import type { MeshPort } from '../../mesh/port';
import { Name, type ModuleSpec } from '../../mesh/schemas';
import { parseActivityInput, refusalsAreFinal } from '../failures';
import { heartbeat } from '../../base/activity-heartbeat';
import { containersGone, namedContainersGone, unknownContainers } from './failures';
import { findModuleContainers, type LabelledContainer, type ModuleContainersAt } from './module-containers';

export const ModuleOnNode = z.object({ node: Name, module: Name });
export type ModuleOnNode = z.infer<typeof ModuleOnNode>;

/** A module's containers to stop, and how long each may take to stop before Docker kills it (default 10 s). */
export const StopModuleInput = ModuleOnNode.extend({
  stopTimeoutSeconds: z.number().int().min(0).max(60).optional(),
});
export type StopModuleInput = z.input<typeof StopModuleInput>;

/** Some containers of a module on a node, by their spec names (`mesh.container`), not Docker names. */
export const ContainersOnNode = ModuleOnNode.extend({ containers: z.array(Name) });
export type ContainersOnNode = z.infer<typeof ContainersOnNode>;

function parseTarget(activity: string, input: ModuleOnNode): ModuleOnNode {
  return parseActivityInput(activity, ModuleOnNode, input);
}

/** A named target with the module spec it was checked against. */
export type CheckedTarget = ContainersOnNode & { spec: ModuleSpec };

/**
 * The input, checked against the module's current spec: every name must be one of its containers, so a
 * typo fails instead of reading as "nothing to stop". Duplicates are dropped. An unknown module fails
 * without retrying, as the mesh activities do.
 */
export async function parseNamedTarget(
  activity: string,
  mesh: MeshPort,
  input: ContainersOnNode,
): Promise<CheckedTarget> {
  const target = parseActivityInput(activity, ContainersOnNode, input);
  const { node, module } = target;
  const containers = [...new Set(target.containers)];
  const spec = await refusalsAreFinal(() => mesh.moduleSpec(module));
  const known = spec.containers.map((c) => c.name);
  const unknown = containers.filter((c) => !known.includes(c));
  if (unknown.length > 0) throw unknownContainers(activity, module, unknown, known);
  return { node, module, containers, spec };
}

/** The module's containers on the node that run one of these spec names (all of them, if two do). */
async function findNamed(at: ModuleContainersAt, target: ContainersOnNode): Promise<LabelledContainer[]> {
  const all = await findModuleContainers(at, target.node, target.module);
  return all.filter((c) => c.container !== undefined && target.containers.includes(c.container));
}

async function stopEach(
  engine: DockerEngine,
  target: ModuleOnNode,
  found: LabelledContainer[],
  timeoutSeconds?: number,
) {
  for (const c of found) {
    heartbeat({ node: target.node, module: target.module, stopping: c.name });
    await engine.stop(c.id, timeoutSeconds);
  }
  return { stopped: found.map((c) => c.name) };
}

async function startEach(engine: DockerEngine, target: ModuleOnNode, found: LabelledContainer[]) {
  for (const c of found) {
    heartbeat({ node: target.node, module: target.module, starting: c.name });
    await engine.start(c.id);
  }
  return { started: found.map((c) => c.name) };
}

/** Stops every container of the module on the node. Stopping a stopped one is success; none at all too. */
export async function stopModuleContainers(
  at: ModuleContainersAt,
  input: StopModuleInput,
): Promise<{ stopped: string[] }> {
  const target = parseActivityInput('stopModuleContainers', StopModuleInput, input);
  const found = await findModuleContainers(at, target.node, target.module);
  return stopEach(at.engine, target, found, target.stopTimeoutSeconds);
}

/**
 * Starts every container of the module on the node (the inverse of stopModuleContainers). Starting a
 * running one is success; a module with no container left on the node fails: what is gone cannot be
 * restarted. Whether they keep running is for an inspection to tell.
 */
export async function startModuleContainers(
  at: ModuleContainersAt,
  input: ModuleOnNode,
): Promise<{ started: string[] }> {
  const target = parseTarget('startModuleContainers', input);
  const containers = await findModuleContainers(at, target.node, target.module);
  if (containers.length === 0) throw containersGone(target.node, target.module);
  return startEach(at.engine, target, containers);
}

/**
 * Stops the named containers of the module on the node; returns the Docker names stopped. Like
 * stopModuleContainers: stopping a stopped one is success, and a named one with no container is too.
 */
export async function stopContainers(
  deps: { mesh: MeshPort; dockerFor(node: string): DockerEngine },
  input: ContainersOnNode,
): Promise<{ stopped: string[] }> {
  const target = await parseNamedTarget('stopContainers', deps.mesh, input);
  const at = containersAt(deps, target.node);
  return stopEach(at.engine, target, await findNamed(at, target));
}

/**
 * Starts the named containers of the module on the node; returns the Docker names started. Starting a
 * running one is success; a named one with no container on the node fails before anything starts.
 */
export async function startContainers(
  deps: { mesh: MeshPort; dockerFor(node: string): DockerEngine },
  input: ContainersOnNode,
): Promise<{ started: string[] }> {
  const target = await parseNamedTarget('startContainers', deps.mesh, input);
  const at = containersAt(deps, target.node);
  const found = await findNamed(at, target);
  const missing = target.containers.filter((name) => !found.some((c) => c.container === name));
  if (missing.length > 0) throw namedContainersGone(target.node, target.module, missing);
  return startEach(at.engine, target, found);
}

/** Docker names of the module's running containers on the node, sorted (preflight: successor not yet running). */
export async function runningModuleContainers(
  at: ModuleContainersAt,
  input: ModuleOnNode,
): Promise<string[]> {
  const { node, module } = parseTarget('runningModuleContainers', input);
  const containers = await findModuleContainers(at, node, module);
  return containers.filter((c) => c.state === 'running').map((c) => c.name);
}

/** Docker names and states of the module's containers on the node, whatever their state, sorted by name. */
export async function moduleContainerStates(
  at: ModuleContainersAt,
  input: ModuleOnNode,
): Promise<{ name: string; state: string }[]> {
  const { node, module } = parseTarget('moduleContainerStates', input);
  const containers = await findModuleContainers(at, node, module);
  return containers.map(({ name, state }) => ({ name, state }));
}

/** The node's engine and the labels its mesh puts on a module's containers. */
export function containersAt(
  deps: { mesh: MeshPort; dockerFor(node: string): DockerEngine },
  node: string,
): ModuleContainersAt {
  return { engine: deps.dockerFor(node), labels: deps.mesh.containerLabels };
}
