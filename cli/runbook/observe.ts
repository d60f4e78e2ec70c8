import { z } from 'zod';
import { CLEARANCE_TYPE } from '../../workflows/clearance-names';
import { firstIssueText } from '../../base/zod-issue';
import { RunbookStatus, statusQuery, type Phase, type RunbookKind } from '../../workflows/contracts';
import { UsageError } from '../errors';
import { orUnknown, type RunbookReader } from './client';
import { isTerminal, phaseOfClosed } from './exit-codes';
import { kindList, kindOfWorkflowType } from './kinds';
import { progressOf, type ActivityProgress } from './follow/progress';
import type { Described } from '../../client/temporal-reads/reads';

/** What the CLI knows about one runbook right now. */
export interface Observation {
  id: string;
  kind: RunbookKind;
  taskQueue: string;
  startTime: Date;
  /** Temporal's own word: RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, TIMED_OUT. */
  executionStatus: string;
  closed: boolean;
  /** From the status query; for a closed run nobody can query, rebuilt from its result or failure. */
  status?: RunbookStatus;
  /** Why a running runbook has no status: no worker polls its task queue, or none answered in time. */
  unanswered?: string;
  /** Who started it, read from its input when the status query could not say. */
  startedBy?: string;
  /** Progress a long activity (copy, verify) heartbeats right now. */
  progress?: ActivityProgress;
}

const QUERY_MS = 5_000;

const StartedInput = z.object({ node: z.string(), module: z.string(), startedBy: z.string() }).partial();

/** The runbook's description and kind; an unknown id or a workflow of another kind is exit 2. */
export async function describeRunbook(rb: RunbookReader, id: string) {
  const described = await orUnknown(id, rb.target, () => rb.reads.describe(id));
  const kind = kindOfWorkflowType(described.type);
  if (described.type === CLEARANCE_TYPE) {
    throw new UsageError(
      `The last run under ${id} is a clearance of its node, not a runbook: no runbook has run there since.`,
      `See who cleared it and why with \`mesh runbook history ${id}\`.`,
    );
  }
  if (kind === undefined) {
    throw new UsageError(
      `${id} is a ${described.type} workflow, not a runbook (the kinds are ${kindList()}).`,
      'See the runbooks with `mesh runbook list`.',
    );
  }
  return { described, kind };
}

export async function observe(rb: RunbookReader, id: string): Promise<Observation> {
  const { described, kind } = await describeRunbook(rb, id);
  const observation: Observation = {
    id,
    kind,
    taskQueue: described.taskQueue,
    startTime: described.startTime,
    executionStatus: described.status,
    closed: described.status !== 'RUNNING',
  };
  const progress = progressOf(described.pendingActivities);
  if (progress) observation.progress = progress;

  const ending = observation.closed ? await howItEnded(rb, described) : undefined;
  // A runbook that ended by itself carries its final status (completed: its result; failed: the failure's
  // details): asking a worker to replay its whole history for a query adds nothing.
  const asked = ending?.result ? { status: ending.result } : await askStatus(rb, described);
  if (asked.status) observation.status = asked.status;

  if (ending) {
    if (observation.status && !isTerminal(observation.status.phase)) {
      // Closed from outside the runbook (terminated, timed out): its last status never reached an end.
      observation.status = {
        ...observation.status,
        phase: ending.phase,
        waiting: null,
        outcome: ending.outcome,
      };
    }
    observation.status ??= ending.result ?? (await rebuilt(rb, described, kind, ending));
  } else if (!observation.status) {
    observation.unanswered = asked.problem;
  }
  if (!observation.status) observation.startedBy = (await startedInput(rb, described)).startedBy;
  return observation;
}

/** The run a status is asked of: a workflow id, its run (empty: the latest) and its task queue. */
type Run = Pick<Described, 'workflowId' | 'runId' | 'taskQueue'>;

/** The runbook's own status query, asked only when a worker polls its task queue (else it would hang). */
export async function askStatus(
  rb: RunbookReader,
  run: Run,
): Promise<{ status?: RunbookStatus; problem?: string }> {
  if (!(await rb.hasWorker(run.taskQueue).catch(() => true)))
    return { problem: `no worker polls its task queue ${run.taskQueue}` };
  try {
    const answer = RunbookStatus.safeParse(
      await rb.reads.query(run.workflowId, run.runId, statusQuery.name, QUERY_MS),
    );
    if (answer.success) return { status: answer.data };
    return { problem: `its status does not parse (${firstIssueText(answer.error, 'the status')})` };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { problem: `no worker answered its status query within ${QUERY_MS / 1000} s (${why})` };
  }
}

interface Ending {
  phase: Phase;
  outcome?: string;
  /** The status the runbook ended with: its result, or its failure's details (since status-in-failure). */
  result?: RunbookStatus;
}

/** A closed run's phase from its result (a completed runbook returns its status) or its failure type. */
async function howItEnded(rb: RunbookReader, described: Described): Promise<Ending> {
  const ending = await rb.reads.ending(described.workflowId, described.runId);
  if (ending === undefined || ending.closed === 'completed') {
    const result = RunbookStatus.safeParse(ending?.result);
    return result.success
      ? { phase: 'completed', outcome: result.data.outcome, result: result.data }
      : { phase: 'completed' };
  }
  const how = described.status.toLowerCase().replace('_', ' ');
  const outcome = ending.message ? `${how}: ${ending.message}` : how;
  const phase = phaseOfClosed(described.status, ending.failureType);
  const final = RunbookStatus.safeParse(ending.closed === 'failed' ? ending.detail : undefined);
  return final.success ? { phase, outcome, result: final.data } : { phase, outcome };
}

/** The status of a closed run no worker can replay: who and what from its input, how it ended. */
async function rebuilt(
  rb: RunbookReader,
  described: Described,
  kind: RunbookKind,
  ending: Ending,
): Promise<RunbookStatus> {
  const input = await startedInput(rb, described);
  return {
    id: described.workflowId,
    kind,
    node: input.node ?? '?',
    module: input.module ?? '?',
    startedBy: input.startedBy ?? '?',
    phase: ending.phase,
    waiting: null,
    steps: [],
    decisions: [],
    refused: [],
    ...(ending.outcome !== undefined ? { outcome: ending.outcome } : {}),
  };
}

/** The runbook's input as it was started, from the first event of its history. */
async function startedInput(rb: RunbookReader, described: Described): Promise<z.infer<typeof StartedInput>> {
  try {
    const parsed = StartedInput.safeParse(await rb.reads.input(described.workflowId, described.runId));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}
