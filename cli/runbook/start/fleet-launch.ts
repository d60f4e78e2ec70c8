import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { lastRunOf, needsClearing } from '../../../client/last-run';
import { fleetOrderLine, startEdgeFlipFleet } from '../../../client/start-fleet';
import { predictedVerdicts } from '../../../client/start-runbook';
import { MeshRefusedError } from '../../../mesh/errors';
import type { MeshPort } from '../../../mesh/port';
import { runbookWorkflowId } from '../../../workflows/contracts';
import { fleetWorkflowId } from '../../../workflows/fleet/contracts';
import { UsageError } from '../../errors';
import { printJson, printJsonLine, printLine } from '../../output';
import { needsClearingRefusal } from '../clear/sentences';
import { refuseMarkedNodes } from './refuse-marked';
import { withClient, type RunbookClient } from '../client';
import { exitForPhase } from '../exit-codes';
import { concludeFollow, follow } from '../follow/follow';
import { load } from '../lazy';
import type { EdgeFlipOptions } from './edge-flip-input';
import { showFleetPlansAndConfirm } from './confirm-plan';
import { busy, type LaunchOptions } from './launch';
import {
  fleetInputFrom,
  fleetOrder,
  nodeListOption,
  waveSizeOption,
  type FleetOptions,
} from './fleet-options';

/**
 * `mesh runbook start edge-flip --nodes a,b,c` (or `--all-nodes-with <module>`): the fleet's nodes are
 * resolved and checked through the worker's mesh adapter and Temporal before anything starts; then one
 * fleet runbook starts and is followed like any runbook.
 */
export async function launchFleet(
  options: Omit<EdgeFlipOptions, 'node'> & FleetOptions & LaunchOptions,
  startedBy: string,
): Promise<void> {
  const waveSize = waveSizeOption(options.waveSize);
  const mesh = load.workerDeps().depsFromEnv().mesh;
  const nodes = await fleetNodes(mesh, options);
  const input = fleetInputFrom(options, fleetOrder(nodes, options.canary), waveSize, startedBy);
  await withClient(
    async (rb) => {
      for (const node of nodes) await refuseBusyNode(rb, node);
      const plans = await showFleetPlansAndConfirm(input.runbooks, input.module, {
        yes: options.yes ?? false,
        json: options.json,
      });
      for (const runbook of input.runbooks) {
        const plan = plans.get(runbook.node);
        const predicted = plan ? predictedVerdicts(plan) : undefined;
        if (predicted) runbook.predicted = predicted;
      }
      const id = fleetWorkflowId(input.module);
      try {
        await startEdgeFlipFleet(rb.client, load.workflows().edgeFlipFleet, input, {
          taskQueue: rb.taskQueue,
        });
      } catch (error) {
        if (error instanceof WorkflowExecutionAlreadyStartedError) throw await busy(rb, id, 'the fleet');
        throw error;
      }
      const started = { id, kind: 'edge-flip', fleet: fleetOrderLine(input), taskQueue: rb.taskQueue, input };
      if (options.detach) {
        if (options.json) return printJson(started);
        printLine(`started ${id} (edge-flip fleet: ${started.fleet}) on task queue ${rb.taskQueue}`);
        return printLine(`follow it with \`mesh runbook watch ${id}\``);
      }
      if (options.json) printJsonLine({ event: 'started', ...started });
      else printLine(`started ${id} (edge-flip fleet: ${started.fleet})`);
      const end = await follow(rb, id, { stopWhenWaiting: true, quiet: false, json: options.json });
      concludeFollow(end, options.json, exitForPhase);
    },
    { operator: startedBy },
  );
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

/** A node whose own runbook runs, or whose last one did not end cleanly, keeps the whole fleet from starting. */
async function refuseBusyNode(rb: RunbookClient, node: string): Promise<void> {
  const id = runbookWorkflowId(node);
  const last = await lastRunOf(rb.client, id);
  if (last.kind === 'runbook' && last.status === 'RUNNING') throw await busy(rb, id, node);
  await refuseMarkedNodes(rb, [node]);
  if (needsClearing(last)) throw needsClearingRefusal(node, last);
}
