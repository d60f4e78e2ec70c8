import {
  ApplicationFailure,
  CancellationScope,
  deprecatePatch,
  patched,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  FAILURE,
  runbookWorkflowId,
  statusQuery,
  Timings,
  type PredictedVerdicts,
  type RunbookKind,
  type RunbookStatus,
} from '../contracts';
import { logContext } from '../interceptors';
import type { LastRun } from '../../activities/runbook/last-run';
import type { RunbookPolicy } from '../policy';
import { routeNodeWorkToNodes, settings } from './activities';
import { Compensations } from './compensation';
import { Decisions } from './decisions';
import { renderDetails } from './details';
import { finish } from './finish';
import { Locks } from './locks';
import { NodeMarks } from './node-marks';
import { parentReporter } from './parent-report';
import { listedSteps, type RunbookPlan } from './plan';
import { Pauses } from './pauses';
import { Progress } from './progress';
import { DURABLE_NODE_MARKS, PARALLEL_READS, QUICK_DEAD_WORKER, TRUSTED_INPUT } from './revision';
import { Runbook } from './runbook';
import { LOCKS } from './step-declarations';
import { showStalledWork } from './stalled-work';
import { refuseUntrusted, type Claims } from './trust';
import type { SignedStart } from '../signing/start-signature';
import { searchAttributePublisher } from './visibility';

/**
 * Opens a runbook of `plan` and runs `script` with it: the status query, the Web UI's live details and
 * search attributes, the worker's decision policy, the decision Update and the undo stack are set up
 * first; any failure or abort runs the undo steps and ends the runbook in the phase that says what happened.
 */
export interface RunbookIdentity {
  node: string;
  module: string;
  startedBy: string;
  /** Revision 2: what the runbook locks besides its node's workflow id, and says it does while others wait. */
  /**
   * What the runbook changes (nodes; modules whose spec it changes) and what it only relies on (modules
   * it pushes as they are): another runbook changing one of them waits, one only relying on them does not.
   */
  touches?: { nodes: string[]; modules: string[]; reads?: string[]; what: string };
  /** Each gate's verdict as the plan predicted it at the start. */
  predicted?: PredictedVerdicts;
  /** The runbook's timings; the locks' ask-again interval among them. */
  timings?: Timings;
  /** Fields only the module's fleet may give, present when the input has them (checked: ./trust.ts). */
  fleetApproval?: unknown;
  fleet?: unknown;
  signedStart?: SignedStart | undefined;
  /** The input as it arrived, whose hash a signed start covers. */
  raw?: object;
}

export async function openRunbook<P extends RunbookPlan & { readonly kind: RunbookKind }>(
  plan: P,
  identity: RunbookIdentity,
  script: (rb: Runbook<P>) => Promise<RunbookStatus>,
): Promise<RunbookStatus> {
  const { node, module, startedBy } = identity;
  const id = workflowInfo().workflowId;
  // The node lock is the workflow id: a runbook under any other id would run beside the node's own.
  if (id !== runbookWorkflowId(node))
    throw ApplicationFailure.nonRetryable(
      `A runbook on ${node} runs as ${runbookWorkflowId(node)}, not ${id}: one runbook per node at a time.`,
      FAILURE.invalidInput,
    );
  // A node's disk and Docker work runs on a worker on that node, never on whichever host polls.
  routeNodeWorkToNodes();
  deprecatePatch(QUICK_DEAD_WORKER);
  const progress = new Progress({ id, kind: plan.kind, node, module, startedBy }, listedSteps(plan));
  setHandler(statusQuery, () => progress.status);
  const searchAttributes = searchAttributePublisher();
  const tellFleet = parentReporter();
  progress.onChange((status) => {
    searchAttributes(status);
    setCurrentDetails(renderDetails(status));
    tellFleet(status);
  });
  logContext.step = 'start';
  // Read beside the policy.
  deprecatePatch(PARALLEL_READS);
  const lastRun = readLastRun();
  // The worker parsed it from its config; the history keeps what applied.
  const policy: RunbookPolicy = await settings.runbookPolicy();
  const decisions = new Decisions(progress, policy);
  showStalledWork(progress, policy);
  // An undo that keeps failing waits for the operator instead of ending the rollback at once.
  const undo = new Compensations(progress, decisions);
  const pauses = new Pauses(progress, () =>
    undo.unwinding
      ? `${id} is undoing its work (an abort or a rollback): nothing holds it now, it ends once its undo steps ran.`
      : undefined,
  );
  const locks = new Locks();
  const marks = new NodeMarks();
  try {
    if (patched(TRUSTED_INPUT)) {
      const signer = refuseUntrusted(identity.raw ?? identity, claimsOf(identity), plan, policy);
      if (signer) progress.proveStarter(signer);
    }
    await refuseUncleared(node, lastRun);
    const { touches } = identity;
    if (touches) await takeLocks(locks, touches, progress, identity.timings ?? Timings.parse({}));
    // Once the locks hold, no other runbook here can mark or unmark these nodes: the check is current.
    if (touches) {
      deprecatePatch(DURABLE_NODE_MARKS);
      await marks.markInFlight(touches.nodes, touches.what, startedBy);
    }
    return await script(new Runbook(plan, progress, decisions, undo, identity.predicted, pauses));
  } catch (error) {
    throw await finish(error, progress, undo);
  } finally {
    await CancellationScope.nonCancellable(() => Promise.all([marks.tellEnded(), locks.release()]));
  }
}

function claimsOf(identity: RunbookIdentity): Claims {
  const { node, module, startedBy, timings, predicted, signedStart } = identity;
  const fromFleet = (['fleetApproval', 'fleet'] as const).filter((field) => identity[field] !== undefined);
  return { node, module, startedBy, timings, predicted, fromFleet, signedStart };
}

/** The node's last run before this one, read now; a failed read is thrown where it is awaited. */
function readLastRun(): Promise<LastRun> {
  const { workflowId, runId } = workflowInfo();
  const read = settings.previousRun({ workflowId, runId });
  read.catch(() => undefined);
  return read;
}

/** A node whose last runbook could not roll back is in a state no runbook knows: a person looks first. */
async function refuseUncleared(node: string, lastRun: Promise<LastRun>): Promise<void> {
  const previous = await lastRun;
  if (previous.kind !== 'runbook' || previous.failureType !== FAILURE.rollbackFailed) return;
  throw ApplicationFailure.nonRetryable(
    `The last runbook on ${node} (${previous.type}, run ${previous.runId}) ended with its rollback failed (${previous.outcome ?? 'no outcome'}); look at ${node}, then clear it: mesh runbook clear ${node} --reason "<what you found and did>".`,
    FAILURE.nodeNeedsClearing,
  );
}

export async function takeLocks(
  locks: Locks,
  touches: NonNullable<RunbookIdentity['touches']>,
  progress: Progress,
  timings: Timings,
): Promise<void> {
  const alone = [...touches.nodes.map((n) => `node-${n}`), ...touches.modules.map((m) => `module-${m}`)];
  const shared = (touches.reads ?? []).map((m) => `module-${m}`).filter((l) => !alone.includes(l));
  const names = [...alone, ...shared.map((l) => `${l} (shared)`)].join(', ');
  progress.mark(LOCKS, 'running', `asks for ${names}`);
  await locks.take(
    { alone, shared },
    touches.what,
    (holder) => progress.mark(LOCKS, 'running', `waits for ${holder.workflowId} (${holder.what}) to finish`),
    timings.lockAskAgainMs,
  );
  progress.mark(LOCKS, 'done', `holds ${names}`);
}
