import type { Client, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { dataPathMoveFleet, edgeFlipFleet } from '../workflows';
import { runbookWorkflowId } from '../workflows/contracts';
import {
  fleetWorkflowId,
  FLEET_NODE,
  type DataPathMoveFleetInputArg,
  type EdgeFlipFleetInputArg,
  type FleetApprovals,
} from '../workflows/fleet/contracts';
import { runbookStartOptions } from './runbook-start-options';
import type { StartSigner } from './sign-start';

/** The order the fleet's nodes run in, as one line: `canary novox, then waves of 2: a, b | c`. */
export function fleetOrderLine(input: {
  runbooks: readonly { node: string }[];
  waveSize?: number | undefined;
}): string {
  const [canary, ...rest] = input.runbooks.map((runbook) => runbook.node);
  const size = input.waveSize ?? 1;
  const waves: string[] = [];
  for (let i = 0; i < rest.length; i += size) waves.push(rest.slice(i, i + size).join(', '));
  return `canary ${canary ?? '-'}${waves.length > 0 ? `, then ${size === 1 ? 'one at a time' : `waves of ${size}`}: ${waves.join(' | ')}` : ''}`;
}

/** How the later nodes are approved and bounded: `approvals canary-then-waves; failure budget 0; ...`. */
export function fleetRulesLine(
  input: Pick<EdgeFlipFleetInputArg, 'approvals' | 'maxFailures' | 'maxParallel' | 'historyBound'>,
): string {
  const approvals = input.approvals ?? 'each-node';
  return [
    `approvals ${approvals} (${APPROVALS_SAY[approvals]})`,
    `failure budget ${input.maxFailures ?? 0} (the next bad end after the canary pauses the fleet; the canary's always does)`,
    ...(input.maxParallel !== undefined ? [`at most ${input.maxParallel} of a wave at once`] : []),
    ...(input.historyBound !== undefined
      ? [`each run under ${input.historyBound} history events (continues as new past half)`]
      : []),
  ].join('; ');
}

const APPROVALS_SAY: Record<FleetApprovals, string> = {
  'each-node': 'every node asks its own approval',
  'canary-then-waves':
    "the canary's approval, then one approval for the later nodes; a later node whose gate is not ok at first look asks its own",
  'canary-only':
    "the canary's approval stands for the later nodes; a later node whose gate is not ok at first look asks its own",
};

/**
 * The one way a fleet starts (CLI, demo, tests, recorder): one parent runbook per module, whose nodes run
 * their own runbooks as children under their own ids (`runbook-<node>`), so each node's lock still holds.
 */
export async function startEdgeFlipFleet(
  client: Client,
  workflow: typeof edgeFlipFleet,
  input: EdgeFlipFleetInputArg,
  options: FleetStartOptions,
): Promise<WorkflowHandleWithFirstExecutionRunId<typeof edgeFlipFleet>> {
  const summary = `edge-flip fleet of ${input.runbooks.length} nodes to ${input.module} (started by ${input.startedBy})`;
  return client.workflow.start(workflow, fleetStartOptions(client, 'edge-flip', input, summary, options));
}

/** A data-path-move fleet starts the same way: `runbook-fleet-<module>`, its nodes under their own ids. */
export async function startDataPathMoveFleet(
  client: Client,
  workflow: typeof dataPathMoveFleet,
  input: DataPathMoveFleetInputArg,
  options: FleetStartOptions,
): Promise<WorkflowHandleWithFirstExecutionRunId<typeof dataPathMoveFleet>> {
  const summary = `data-path-move fleet of ${input.runbooks.length} nodes: ${input.module} ${input.from} → ${input.to} (started by ${input.startedBy})`;
  return client.workflow.start(
    workflow,
    fleetStartOptions(client, 'data-path-move', input, summary, options),
  );
}

export interface FleetStartOptions {
  taskQueue: string;
  /** Signs the fleet's start with its starter's key (mesh runbook start --key). */
  signStart?: StartSigner;
}

/** A fleet starts as every runbook does (runbookStartOptions): over `runbook-fleet-<module>`, node `fleet`. */
function fleetStartOptions<I extends EdgeFlipFleetInputArg | DataPathMoveFleetInputArg>(
  client: Client,
  kind: 'edge-flip' | 'data-path-move',
  input: I,
  summary: string,
  options: FleetStartOptions,
) {
  const nodes = input.runbooks.map((runbook) => runbook.node);
  return runbookStartOptions(client, {
    kind,
    input,
    workflowId: fleetWorkflowId(input.module),
    node: FLEET_NODE,
    summary,
    details: [
      `**order:** ${fleetOrderLine(input)}`,
      `**rules:** ${fleetRulesLine(input)}`,
      `**nodes' runbooks:** ${nodes.map(runbookWorkflowId).join(', ')}`,
      'The fleet waits whenever a node waits (decide on the node; the fleet goes on when it does) and starts no other node meanwhile; a node that fails or rolls back pauses it for `continue` or `abort`. Abort cancels the running nodes: their undo steps run.',
    ],
    taskQueue: options.taskQueue,
    signStart: options.signStart,
  });
}
