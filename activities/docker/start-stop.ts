import { z } from 'zod';
import type { DockerEngine } from '../../docker/engine';
import { Name } from '../../mesh/schemas';
import { heartbeat } from '../heartbeat';
import { containersGone, firstIssue, invalidInput } from './failures';
import { findModuleContainers } from './module-containers';

export const ModuleOnNode = z.object({ node: Name, module: Name });
export type ModuleOnNode = z.infer<typeof ModuleOnNode>;

function parseTarget(activity: string, input: ModuleOnNode): ModuleOnNode {
  const parsed = ModuleOnNode.safeParse(input);
  if (!parsed.success) throw invalidInput(activity, firstIssue(parsed.error));
  return parsed.data;
}

/** Stops every container of the module on the node. Stopping a stopped one is success; none at all too. */
export async function stopModuleContainers(
  engine: DockerEngine,
  input: ModuleOnNode,
): Promise<{ stopped: string[] }> {
  const { node, module } = parseTarget('stopModuleContainers', input);
  const containers = await findModuleContainers(engine, node, module);
  for (const c of containers) {
    heartbeat({ node, module, stopping: c.name });
    await engine.stop(c.id);
  }
  return { stopped: containers.map((c) => c.name) };
}

/**
 * Starts every container of the module on the node (the inverse of stopModuleContainers). Starting a
 * running one is success; a module with no container left on the node fails: what is gone cannot be
 * restarted. Whether they keep running is for an inspection to tell.
 */
export async function startModuleContainers(
  engine: DockerEngine,
  input: ModuleOnNode,
): Promise<{ started: string[] }> {
  const { node, module } = parseTarget('startModuleContainers', input);
  const containers = await findModuleContainers(engine, node, module);
  if (containers.length === 0) throw containersGone(node, module);
  for (const c of containers) {
    heartbeat({ node, module, starting: c.name });
    await engine.start(c.id);
  }
  return { started: containers.map((c) => c.name) };
}

/** Docker names of the module's running containers on the node, sorted (preflight: successor not yet running). */
export async function runningModuleContainers(engine: DockerEngine, input: ModuleOnNode): Promise<string[]> {
  const { node, module } = parseTarget('runningModuleContainers', input);
  const containers = await findModuleContainers(engine, node, module);
  return containers.filter((c) => c.state === 'running').map((c) => c.name);
}
