import {
  ApplicationFailure,
  condition,
  isCancellation,
  patched,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { FAILURE, statusQuery, type FleetApproval, type RunbookKind, type RunbookStatus } from '../contracts';
import { settings } from '../runbook/activities';
import { Decisions } from '../runbook/decisions';
import { renderDetails } from '../runbook/details';
import { abortedBy, failureMessage, isAbort } from '../runbook/failures';
import { Pauses } from '../runbook/pauses';
import { Progress } from '../runbook/progress';
import { searchAttributePublisher } from '../runbook/visibility';
import { TRUSTED_INPUT } from '../runbook/revision';
import { approvalAfterCanary } from './approvals';
import { refuseUntrustedFleet } from './trust';
import { FLEET_NODE, type AnyFleetInput, type StandsFor } from './contracts';
import { continueTheFleet, pastHalfTheBound } from './history-bound';
import { FleetNodes, namesLine, type FleetChild } from './nodes';

type Runbook<I extends AnyFleetInput> = I['runbooks'][number];

/** What one kind of fleet adds to the script every fleet follows (runFleet). */
export interface FleetKind<I extends AnyFleetInput> {
  kind: RunbookKind;
  standsFor: StandsFor;
  /** The node's own runbook as this fleet starts it; `first`: it runs before any other node of the fleet. */
  child(runbook: Runbook<I>, approval: FleetApproval | undefined, first: boolean): FleetChild;
  /**
   * Before the first node (in every run of the fleet): what the fleet does for all its nodes at once; it may
   * name nodes the fleet does not run, each with why (a move fleet's nodes that moved before it).
   */
  begin?(progress: Progress): Promise<ReadonlyMap<string, string> | void>;
  /** Once no node runs any more, however the fleet ends: what it undoes or finishes; a sentence for its outcome. */
  end?(progress: Progress, allCompleted: boolean): Promise<string | undefined>;
  /** Right before the fleet continues as new: what the next run must be handed, what it must let go. */
  beforeContinue?(): Promise<Partial<I>>;
}

/**
 * The script of every fleet: each node's own runbook runs as a child workflow, the canary alone first, then
 * waves of `waveSize`, at most `maxParallel` of a wave at once. As soon as a node waits at a gate the fleet
 * waits too (that node is decided on itself; the fleet goes on when it moves on) and starts no other node;
 * a node that fails or rolls back pauses the fleet for continue or abort, unless the failure budget
 * (`maxFailures`, never the canary) still covers it. After the canary, `approvals` says whether the later
 * nodes ask their own approval (FLEET_APPROVALS). Abort cancels the running nodes (their undo steps run).
 * Past half its history bound, it continues as new between node starts, once no node runs (history-bound.ts).
 */
export async function runFleet<I extends AnyFleetInput>(
  input: I,
  kind: FleetKind<I>,
  /** The input as it arrived, whose hash a signed start covers. */
  raw: object,
): Promise<RunbookStatus> {
  const runbooks: readonly Runbook<I>[] = input.runbooks;
  const order = runbooks.map((runbook) => runbook.node);
  const progress = new Progress(
    {
      id: workflowInfo().workflowId,
      kind: kind.kind,
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
  const policy = await settings.runbookPolicy();
  const decisions = new Decisions(progress, policy);
  const nodes = new FleetNodes(progress, input.carried?.ended);
  const pauses = new Pauses(progress);
  if (patched(TRUSTED_INPUT)) {
    try {
      const signer = refuseUntrustedFleet(input, raw, kind, policy);
      if (signer) progress.proveStarter(signer);
    } catch (error) {
      progress.end('failed', failureMessage(error));
      throw ApplicationFailure.create({
        message: failureMessage(error),
        type: FAILURE.invalidInput,
        nonRetryable: true,
        details: [progress.status],
      });
    }
  }

  const { maxParallel } = input;
  let skipped: ReadonlyMap<string, string> | void;
  try {
    skipped = await kind.begin?.(progress);
  } catch (error) {
    // A refusal before any node started (preflight of the whole fleet) ends it failed, an abort (while it waits
    // for its locks) aborted; the kind undoes its part.
    const ended = await kind.end?.(progress, false);
    const why = isCancellation(error) ? 'aborted (cancelled)' : failureMessage(error);
    progress.end(isAbort(error) ? 'aborted' : 'failed', [why, ...(ended ? [ended] : [])].join('; '));
    throw error;
  }
  for (const [node, why] of skipped ?? []) nodes.skip(node, why);
  const moving = runbooks.filter((runbook) => !skipped?.has(runbook.node));
  const [canary, ...later] = moving.map((runbook) => runbook.node);
  try {
    let approval: FleetApproval | undefined = input.carried?.approval;
    for (const [index, wave] of waves(moving, input.waveSize).entries()) {
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
            standsFor: kind.standsFor,
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
          const handOver = (await kind.beforeContinue?.()) ?? {};
          await continueTheFleet({ ...input, ...handOver }, { progress, nodes, approval });
        }
        // A pause holds here, between node starts: the nodes already running go on (pause them on themselves).
        if (pauses.inForce()) {
          progress.holdPaused(runbook.node);
          await supervise(() => !pauses.inForce());
        }
        if (maxParallel !== undefined) await supervise(() => nodes.running() < maxParallel);
        await nodes.start(kind.child(runbook, approval, index === 0 && !input.carried));
      }
    }
    await supervise(() => nodes.running() === 0);
  } catch (error) {
    if (!isAbort(error)) throw error;
    progress.leaveWait();
    await nodes.abortRunning();
    const ended = await kind.end?.(progress, false);
    const why = isCancellation(error) ? 'aborted (cancelled)' : failureMessage(error);
    progress.end('aborted', [`${why}; ${nodes.summary(order)}`, ...(ended ? [ended] : [])].join('; '));
    throw error;
  }
  const summary = nodes.summary(order);
  const allCompleted = summary.startsWith(`${order.length} of`);
  const ended = await kind.end?.(progress, allCompleted);
  const outcome = (first: string) => [first, ...(ended ? [ended] : [])].join('; ');
  if (allCompleted) {
    progress.end('completed', outcome(`${input.module} on ${namesLine(order)}: ${summary}`));
    return progress.status;
  }
  progress.end('failed', outcome(summary));
  throw ApplicationFailure.nonRetryable(outcome(summary), FAILURE.verificationFailed);

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
function waves<R>(runbooks: readonly R[], waveSize: number): R[][] {
  const [canary, ...rest] = runbooks;
  const result: R[][] = canary ? [[canary]] : [];
  for (let i = 0; i < rest.length; i += waveSize) result.push(rest.slice(i, i + waveSize));
  return result;
}
