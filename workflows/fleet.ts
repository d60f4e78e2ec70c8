import {
  ApplicationFailure,
  condition,
  isCancellation,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { FAILURE, parseInput, statusQuery, type FleetApproval, type RunbookStatus } from './contracts';
import {
  EdgeFlipFleetInput,
  FLEET_NODE,
  type EdgeFlipFleetInput as FleetInput,
  type EdgeFlipFleetInputArg,
} from './fleet/contracts';
import { approvalAfterCanary } from './fleet/approvals';
import { continueTheFleet, pastHalfTheBound } from './fleet/history-bound';
import { FleetNodes, namesLine } from './fleet/nodes';
import { settings } from './runbook/activities';
import { Decisions } from './runbook/decisions';
import { Pauses } from './runbook/pauses';
import { renderDetails } from './runbook/details';
import { abortedBy, failureMessage, isAbort } from './runbook/failures';
import { Progress } from './runbook/progress';
import { searchAttributePublisher } from './runbook/visibility';

/**
 * Flips a fleet of nodes: each node's own edge-flip runbook runs as a child workflow, the canary alone first,
 * then waves of `waveSize`, at most `maxParallel` of a wave at once. As soon as a node waits at a gate the
 * fleet waits too (that node is decided on itself; the fleet goes on when it moves on) and starts no other
 * node; a node that fails or rolls back pauses the fleet for continue or abort, unless the failure budget
 * (`maxFailures`, never the canary) still covers it. After the canary, `approvals` says whether the later
 * nodes ask their own approval (FLEET_APPROVALS). Abort cancels the running nodes (their undo steps run).
 * Past half its history bound, it continues as new between node starts, once no node runs (history-bound.ts).
 */
export async function edgeFlipFleet(rawInput: EdgeFlipFleetInputArg): Promise<RunbookStatus> {
  const input = parseInput(EdgeFlipFleetInput, rawInput);
  const order = input.runbooks.map((runbook) => runbook.node);
  const progress = new Progress(
    {
      id: workflowInfo().workflowId,
      kind: 'edge-flip',
      node: FLEET_NODE,
      module: input.module,
      startedBy: input.startedBy,
    },
    order,
    input.carried?.status,
  );
  setHandler(statusQuery, () => progress.status);
  const searchAttributes = searchAttributePublisher();
  progress.onChange((status) => {
    searchAttributes(status);
    setCurrentDetails(renderDetails(status));
  });
  const decisions = new Decisions(progress, await settings.runbookPolicy());
  const nodes = new FleetNodes(progress, input.carried?.ended);
  const pauses = new Pauses(progress);

  const [canary, ...later] = order;
  const { maxParallel } = input;
  try {
    let approval: FleetApproval | undefined = input.carried?.approval;
    for (const [index, wave] of waves(input).entries()) {
      // A run the fleet continued as goes on with the first node no run started.
      const unstarted = wave.filter((runbook) => !nodes.started(runbook.node));
      if (unstarted.length === 0) continue;
      await supervise(() => nodes.running() === 0);
      // Only inputs that name a fleet approval policy or a bound ask or wait here: older fleets replay as they ran.
      if (index === 1 && !input.carried && input.approvals !== undefined && canary !== undefined)
        approval = await approvalAfterCanary(
          input.approvals,
          { decisions, progress },
          {
            fleetId: workflowInfo().workflowId,
            module: input.module,
            canary,
            completed: nodes.completedWith(canary),
            later,
          },
        );
      for (const runbook of unstarted) {
        if (index > 0 && pastHalfTheBound(input)) {
          await supervise(() => nodes.running() === 0);
          await continueTheFleet(input, { progress, nodes, approval });
        }
        // A pause holds here, between node starts: the nodes already running go on (pause them on themselves).
        if (pauses.inForce()) {
          progress.holdPaused(runbook.node);
          await supervise(() => !pauses.inForce());
        }
        if (maxParallel !== undefined) await supervise(() => nodes.running() < maxParallel);
        await nodes.start(approval ? { ...runbook, fleetApproval: approval } : runbook);
      }
    }
    await supervise(() => nodes.running() === 0);
  } catch (error) {
    if (!isAbort(error)) throw error;
    progress.leaveWait();
    await nodes.abortRunning();
    const why = isCancellation(error) ? 'aborted (cancelled)' : failureMessage(error);
    progress.end('aborted', `${why}; ${nodes.summary(order)}`);
    throw error;
  }
  const summary = nodes.summary(order);
  if (summary.startsWith(`${order.length} of`)) {
    progress.end('completed', `${input.module} on ${namesLine(order)}: ${summary}`);
    return progress.status;
  }
  progress.end('failed', summary);
  throw ApplicationFailure.nonRetryable(summary, FAILURE.verificationFailed);

  /** Answers whatever needs the operator (a node waiting, a node ended badly) until `done` holds. */
  async function supervise(done: () => boolean): Promise<void> {
    for (;;) {
      const seen = nodes.version;
      const waits = nodes.waiting();
      if (waits) {
        const { node, waiting } = waits;
        const decision = await decisions.awaitUnless(
          {
            gate: node,
            verdict: waiting.verdict,
            reason: `${node} waits at ${waiting.gate} (${waiting.verdict}): ${waiting.reason} Decide on the node itself (mesh runbook decide ${node} <action>); the fleet goes on when ${node} does and starts no other node meanwhile; abort here aborts every running node.`,
            actions: ['abort'],
            facts: waiting.facts.map((fact) => `${node}: ${fact}`),
          },
          () => nodes.movedOn(node, waiting.evidence),
        );
        if (decision) throw abortedBy(decision.by, node);
        continue;
      }
      const bad = nodes.endedBadly();
      if (bad) {
        // Within the failure budget a later node's bad end is on record in its step; the canary's always pauses.
        const budget = input.maxFailures ?? 0;
        if (bad.node !== canary && nodes.badEnds() <= budget) {
          nodes.acknowledge(bad.node);
          continue;
        }
        const overBudget =
          budget > 0 && bad.node !== canary
            ? ` ${nodes.badEnds()} nodes ended badly, more than --max-failures ${budget}.`
            : '';
        const decision = await decisions.await({
          gate: bad.node,
          verdict: 'failed',
          reason: `${bad.node} ${bad.phase}: ${bad.outcome};${overBudget} continue goes on with the other nodes, abort aborts every running node and starts no other.`,
          actions: ['continue', 'abort'],
          facts: [`${bad.node}: ${bad.phase}: ${bad.outcome}`],
        });
        if (decision.action === 'abort') throw abortedBy(decision.by, bad.node);
        nodes.acknowledge(bad.node);
        continue;
      }
      if (done()) return;
      await condition(() => nodes.version !== seen || done());
    }
  }
}

/** The canary alone, then the rest `waveSize` at a time. */
function waves(input: FleetInput): FleetInput['runbooks'][] {
  const [canary, ...rest] = input.runbooks;
  const result: FleetInput['runbooks'][] = canary ? [[canary]] : [];
  for (let i = 0; i < rest.length; i += input.waveSize) result.push(rest.slice(i, i + input.waveSize));
  return result;
}
