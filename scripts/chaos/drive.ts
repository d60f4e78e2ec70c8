import type { Client, WorkflowHandle } from '@temporalio/client';
import { decideUpdate, statusQuery, type RunbookStatus, type Waiting } from '../../workflows/contracts';
import { PLANS } from '../../workflows/plans';
import { plannedStep } from '../../workflows/runbook/plan';

/** The operator's pre-agreed answers: what an undisturbed run of each runbook is decided with. */
export type Answer = (waiting: Waiting) => string | undefined;

export const edgeFlipAnswer: Answer = (waiting) => {
  if (waiting.verdict === 'held' && waiting.actions.includes('take')) return 'take';
  if (waiting.verdict === 'approval' && waiting.actions.includes('approve')) return 'approve';
  return undefined;
};

export const dataPathMoveAnswer: Answer = (waiting) => {
  // The container must move to the new path whatever else the gate saw (a health check late under load).
  if (waiting.gate === 'gate-apply' && waiting.actions.includes('recreate')) return 'recreate';
  if (waiting.verdict === 'approval' && waiting.actions.includes('keep')) return 'keep';
  return undefined;
};

/** A wait the driver saw: at which gate, with what verdict, since when. */
export interface SeenWait {
  gate: string;
  verdict: string;
  since: string;
  reason: string;
}

export interface Driven {
  status?: RunbookStatus;
  /** The waits the driver answered with recheck, as `gate (verdict): reason`. */
  rechecks: string[];
  /** Why the runbook did not close: it stalled, waited where no answer fits, or its result failed. */
  problem?: string;
  waits: SeenWait[];
}

/**
 * What a runbook waits with on a loaded machine without any fault (a health check that timed out, a report
 * late): the operator looks again, up to three times per run; every recheck is in the run's notes.
 */
export const RECHECKABLE = new Set(['failed', 'pending', 'unreadable']);
export const RECHECKS = 3;

export interface DriveOptions {
  answer: Answer;
  deadlineMs: number;
  /** Before each decision (e.g. to kill the worker at that wait); the decision follows it. */
  beforeDecision?: (waiting: Waiting) => Promise<void>;
  by?: string;
  /** The phase the run is meant to end in: a run closed failed in it (`rolled-back`) is no problem. */
  ends?: RunbookStatus['phase'];
}

/**
 * Answers the runbook's waits as an operator would, until it closes: polls its status (a query, which fails
 * while no worker runs: the driver tries again), decides with the evidence hash it saw, and gives up with
 * a problem at a wait it has no answer for or at the deadline.
 */
export async function drive(handle: WorkflowHandle, options: DriveOptions): Promise<Driven> {
  const deadline = Date.now() + options.deadlineMs;
  const waits: SeenWait[] = [];
  const rechecks: string[] = [];
  let closed = false;
  const result = handle.result().then(
    () => undefined,
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
  void result.finally(() => (closed = true));
  let last: RunbookStatus | undefined;
  while (!closed) {
    if (Date.now() > deadline)
      return { status: last, problem: `did not close in ${options.deadlineMs / 1000} s`, waits, rechecks };
    const status = await handle.query(statusQuery).catch(() => undefined);
    if (status) last = status;
    const waiting = status?.waiting;
    if (waiting) {
      if (!waits.some((w) => w.gate === waiting.gate && w.since === waiting.since))
        waits.push({
          gate: waiting.gate,
          verdict: waiting.verdict,
          since: waiting.since,
          reason: waiting.reason,
        });
      let action = options.answer(waiting);
      const recheck =
        action === undefined &&
        RECHECKABLE.has(waiting.verdict) &&
        waiting.actions.includes('recheck') &&
        rechecks.length < RECHECKS;
      if (recheck) {
        action = 'recheck';
        rechecks.push(`${waiting.gate} (${waiting.verdict}): ${waiting.reason.slice(0, 160)}`);
      }
      if (action === undefined)
        return {
          status,
          problem: `waits at ${waiting.gate} (${waiting.verdict}): ${waiting.reason}`,
          waits,
          rechecks,
        };
      await options.beforeDecision?.(waiting);
      await handle
        .executeUpdate(decideUpdate, {
          args: [{ gate: waiting.gate, action, by: options.by ?? 'bob', evidence: waiting.evidence }],
        })
        .catch(() => undefined); // a stale hash or a recheck that moved on: the next look decides again
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const failure = await result;
  const status = await handle.query(statusQuery).catch(() => last);
  const meant = options.ends !== undefined && status?.phase === options.ends;
  return {
    status,
    waits,
    rechecks,
    ...(failure && !meant ? { problem: `the runbook failed: ${failure}` } : {}),
  };
}

/**
 * Steps after a gate that ran although the gate waited with evidence that was not ok and nobody decided it
 * there: for each wait the driver saw, a later step that started after the wait began must come after a
 * decision at that gate made since the wait began.
 */
export function wrongProceeds(status: RunbookStatus, waits: SeenWait[]): string[] {
  const names = status.steps.map((step) => step.name);
  // An approval whose evidence changed ends undecided and hands over to a gate that looks again (and waits
  // if it must): only what the approval guards, the steps that act, needs its decision.
  const looksOnly = (name: string) => plannedStep(PLANS[status.kind], name)?.kind === 'gate';
  return waits.flatMap((wait) => {
    const gateIndex = names.indexOf(wait.gate);
    const decided = status.decisions.find((d) => d.gate === wait.gate && d.at >= wait.since);
    return status.steps
      .filter((step, i) => i > gateIndex && step.startedAt !== undefined && step.startedAt >= wait.since)
      .filter((step) => wait.verdict !== 'approval' || !looksOnly(step.name))
      .filter((step) => !decided || (step.startedAt ?? '') < decided.at)
      .map((step) => `${step.name} ran after ${wait.gate} waited (${wait.verdict}) with no decision`);
  });
}

/** The runbook's workflow-task and activity completions after `since` (ms): when it moved again. */
export async function movedAgainAt(
  client: Client,
  workflowId: string,
  since: number,
): Promise<number | undefined> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  for (const event of history.events ?? []) {
    const at = Number(event.eventTime?.seconds ?? 0) * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6);
    if (at < since) continue;
    if (event.workflowTaskCompletedEventAttributes || event.activityTaskCompletedEventAttributes) return at;
  }
  return undefined;
}
