import { MeshRefusedError } from '../../../mesh/errors';
import type { MeshPort } from '../../../mesh/port';
import type { EdgeFlipInput } from '../../../workflows/contracts';
import type { EdgeFlipFleetInputArg } from '../../../workflows/fleet/contracts';
import { UsageError } from '../../errors';
import { load } from '../lazy';
import type { EdgeFlipOptions } from './edge-flip-input';
import {
  fleetInputFrom,
  fleetOrder,
  nodeListOption,
  fleetRulesOption,
  type FleetOptions,
} from './fleet-options';

/**
 * A fleet's input as `start` and `plan` read it from their options: its nodes resolved and each one
 * checked through the worker's mesh adapter, in the order they run, every node's input validated. Needs
 * mesh, not Temporal.
 */
export async function fleetInputFromMesh(
  options: Omit<EdgeFlipOptions, 'node'> & FleetOptions,
  startedBy: string,
): Promise<EdgeFlipFleetInputArg & { runbooks: EdgeFlipInput[] }> {
  const rules = fleetRulesOption(options);
  const mesh = load.workerDeps().depsFromEnv().mesh;
  const nodes = await fleetNodes(mesh, options);
  return fleetInputFrom(options, fleetOrder(nodes, options.canary), rules, startedBy);
}

/** The nodes named, or every node the module is assigned to; each one known to mesh. */
async function fleetNodes(mesh: MeshPort, options: FleetOptions): Promise<string[]> {
  if (options.nodes !== undefined && options.allNodesWith !== undefined)
    throw new UsageError(
      '--nodes and --all-nodes-with both name the fleet; give one of them.',
      'Name the nodes with --nodes a,b,c, or take every node a module is assigned to with --all-nodes-with <module>.',
    );
  if (options.allNodesWith !== undefined) {
    const module = options.allNodesWith;
    const nodes = await mesh.moduleNodes(module).catch((error: unknown) => {
      if (error instanceof MeshRefusedError)
        throw new UsageError(
          `--all-nodes-with ${module}: ${error.message}`,
          'See the modules with `mesh local module list`.',
        );
      throw error;
    });
    if (nodes.length === 0)
      throw new UsageError(
        `--all-nodes-with ${module} finds no node: ${module} is assigned to none.`,
        'Name the nodes with --nodes a,b,c instead.',
      );
    return nodes;
  }
  if (options.nodes === undefined)
    throw new UsageError(
      'A fleet needs its nodes: --nodes a,b,c or --all-nodes-with <module>.',
      'For example --nodes edge1,novox,edge3 (the first is the canary).',
    );
  const nodes = nodeListOption(options.nodes);
  for (const node of nodes)
    await mesh.nodeState(node).catch((error: unknown) => {
      if (error instanceof MeshRefusedError)
        throw new UsageError(
          `--nodes names ${node}, which mesh does not know (${error.message.replace(/\.$/, '')}).`,
          'See the nodes with `mesh local node list`.',
        );
      throw error;
    });
  return nodes;
}
