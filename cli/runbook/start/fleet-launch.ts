import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { lastRunOf, needsClearing } from '../../../activities/runbook/last-run';
import { fleetOrderLine, fleetRulesLine, startEdgeFlipFleet } from '../../../client/start-fleet';
import { predictedVerdicts } from '../../../client/start-runbook';
import { runbookWorkflowId } from '../../../workflows/contracts';
import { fleetWorkflowId, MOVE_WAVES_GATE, WAVES_GATE } from '../../../workflows/fleet/contracts';
import { printJson, printJsonLine, printLine } from '../../output';
import { needsClearingRefusal } from '../clear/sentences';
import { refuseMarkedNodes } from './refuse-marked';
import { startSigner } from './start-signer';
import type { StartSigner } from '../../../client/sign-start';
import { withClient, type RunbookClient } from '../client';
import { exitForPhase } from '../exit-codes';
import { concludeFollow, follow } from '../follow/follow';
import { load } from '../lazy';
import type { EdgeFlipOptions } from './edge-flip-input';
import { showFleetPlansAndConfirm } from './confirm-plan';
import { busy, type LaunchOptions } from './launch';
import { fleetInputFromMesh } from './fleet-input';
import type { FleetOptions } from './fleet-options';

/**
 * `mesh runbook start edge-flip --nodes a,b,c` (or `--all-nodes-with <module>`): the fleet's nodes are
 * resolved and checked through the worker's mesh adapter and Temporal before anything starts; then one
 * fleet runbook starts and is followed like any runbook.
 */
export async function launchFleet(
  options: Omit<EdgeFlipOptions, 'node'> & FleetOptions & LaunchOptions,
  startedBy: string,
): Promise<void> {
  const signing = signedBy(options.key, 'edge-flip');
  const input = await fleetInputFromMesh(options, startedBy);
  const nodes = input.runbooks.map((runbook) => runbook.node);
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
      await startFleetAndFollow(rb, options, {
        kind: 'edge-flip',
        input,
        what: (order) => `edge-flip fleet: ${order}`,
        start: () =>
          startEdgeFlipFleet(rb.client, load.workflows().edgeFlipFleet, input, {
            taskQueue: rb.taskQueue,
            ...signing,
          }),
      });
    },
    { operator: startedBy },
  );
}

/** The fleet start's signer, when --key (or $MESH_SIGNING_KEY) names one; refused when one is needed. */
export function signedBy(
  key: string | undefined,
  kind: 'edge-flip' | 'data-path-move',
): { signStart?: StartSigner } {
  const signStart = startSigner(key, kind, [kind === 'edge-flip' ? WAVES_GATE : MOVE_WAVES_GATE]);
  return signStart ? { signStart } : {};
}

/** What a fleet's start says and follows, whatever its kind. */
interface FleetStart {
  kind: 'edge-flip' | 'data-path-move';
  input: Parameters<typeof fleetOrderLine>[0] & Parameters<typeof fleetRulesLine>[0] & { module: string };
  /** The fleet named in the started line, given its order: `edge-flip fleet: canary a, then ...`. */
  what: (order: string) => string;
  start: () => Promise<unknown>;
}

/** Starts the fleet (a fleet of the module running already is refused as busy), says so, and follows it. */
export async function startFleetAndFollow(
  rb: RunbookClient,
  options: LaunchOptions,
  fleet: FleetStart,
): Promise<void> {
  const id = fleetWorkflowId(fleet.input.module);
  try {
    await fleet.start();
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) throw await busy(rb, id, 'the fleet');
    throw error;
  }
  const order = fleetOrderLine(fleet.input);
  const started = {
    id,
    kind: fleet.kind,
    fleet: order,
    rules: fleetRulesLine(fleet.input),
    taskQueue: rb.taskQueue,
    input: fleet.input,
  };
  if (options.detach) {
    if (options.json) return printJson(started);
    printLine(`started ${id} (${fleet.what(order)}) on task queue ${rb.taskQueue}`);
    printLine(`rules: ${started.rules}`);
    return printLine(`follow it with \`mesh runbook watch ${id}\``);
  }
  if (options.json) printJsonLine({ event: 'started', ...started });
  else {
    printLine(`started ${id} (${fleet.what(order)})`);
    printLine(`rules: ${started.rules}`);
  }
  const end = await follow(rb, id, { stopWhenWaiting: true, quiet: false, json: options.json });
  concludeFollow(end, options.json, exitForPhase);
}

/** A node whose own runbook runs, or whose last one could not roll back, keeps the whole fleet from starting. */
export async function refuseBusyNode(rb: RunbookClient, node: string): Promise<void> {
  const id = runbookWorkflowId(node);
  const last = await lastRunOf(rb.client, id);
  if (last.kind === 'runbook' && last.status === 'RUNNING') throw await busy(rb, id, node);
  await refuseMarkedNodes(rb, [node]);
  if (needsClearing(last)) throw needsClearingRefusal(node, last);
}
