import {
  ApplicationFailure,
  defaultPayloadConverter,
  WorkflowFailedError,
  type WorkflowHandle,
} from '@temporalio/client';
import { z } from 'zod';
import { CLEARANCE_TYPE } from '../../client/clearance-names';
import { firstIssueText } from '../../mesh/zod-issue';
import { RunbookStatus, statusQuery, type Phase, type RunbookKind } from '../../workflows/contracts';
import { UsageError } from '../errors';
import { orUnknown, type RunbookClient } from './client';
import { isTerminal, phaseOfClosed } from './exit-codes';
import { kindList, kindOfWorkflowType } from './kinds';
import { progressOf, type ActivityProgress } from './follow/progress';

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

/** The runbook's handle, its description and kind; an unknown id or a workflow of another kind is exit 2. */
export async function describeRunbook(rb: RunbookClient, id: string) {
  const handle = rb.client.workflow.getHandle(id);
  const described = await orUnknown(id, rb.target, () => rb.within(10_000, () => handle.describe()));
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
  return { handle, described, kind };
}

export async function observe(rb: RunbookClient, id: string): Promise<Observation> {
  const { handle, described, kind } = await describeRunbook(rb, id);
  const observation: Observation = {
    id,
    kind,
    taskQueue: described.taskQueue,
    startTime: described.startTime,
    executionStatus: described.status.name,
    closed: described.status.name !== 'RUNNING',
  };
  const progress = progressOf(described.raw.pendingActivities);
  if (progress) observation.progress = progress;

  const asked = await askStatus(rb, handle, described.taskQueue);
  if (asked.status) observation.status = asked.status;

  if (observation.closed) {
    const ending = await howItEnded(rb, handle, observation.executionStatus);
    if (observation.status && !isTerminal(observation.status.phase)) {
      // Closed from outside the runbook (terminated, timed out): its last status never reached an end.
      observation.status = {
        ...observation.status,
        phase: ending.phase,
        waiting: null,
        outcome: ending.outcome,
      };
    }
    observation.status ??= ending.result ?? (await rebuilt(rb, handle, described.runId, kind, ending));
  } else if (!observation.status) {
    observation.unanswered = asked.problem;
  }
  if (!observation.status)
    observation.startedBy = (await startedInput(rb, handle, described.runId)).startedBy;
  return observation;
}

/** The runbook's own status query, asked only when a worker polls its task queue (else it would hang). */
export async function askStatus(
  rb: RunbookClient,
  handle: WorkflowHandle,
  taskQueue: string,
): Promise<{ status?: RunbookStatus; problem?: string }> {
  if (!(await rb.hasWorker(taskQueue).catch(() => true)))
    return { problem: `no worker polls its task queue ${taskQueue}` };
  try {
    const answer = RunbookStatus.safeParse(await rb.within(QUERY_MS, () => handle.query(statusQuery)));
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
  result?: RunbookStatus;
}

/** A closed run's phase from its result (a completed runbook returns its status) or its failure type. */
async function howItEnded(
  rb: RunbookClient,
  handle: WorkflowHandle,
  executionStatus: string,
): Promise<Ending> {
  try {
    const result = RunbookStatus.safeParse(await rb.within(10_000, () => handle.result()));
    return result.success
      ? { phase: 'completed', outcome: result.data.outcome, result: result.data }
      : { phase: 'completed' };
  } catch (error) {
    if (!(error instanceof WorkflowFailedError)) throw error;
    const cause = error.cause;
    const type = cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined;
    const how = executionStatus.toLowerCase().replace('_', ' ');
    const outcome = cause?.message ? `${how}: ${cause.message}` : how;
    return { phase: phaseOfClosed(executionStatus, type), outcome };
  }
}

/** The status of a closed run no worker can replay: who and what from its input, how it ended. */
async function rebuilt(
  rb: RunbookClient,
  handle: WorkflowHandle,
  runId: string,
  kind: RunbookKind,
  ending: Ending,
): Promise<RunbookStatus> {
  const input = await startedInput(rb, handle, runId);
  return {
    id: handle.workflowId,
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
async function startedInput(
  rb: RunbookClient,
  handle: WorkflowHandle,
  runId: string,
): Promise<z.infer<typeof StartedInput>> {
  try {
    const history = await rb.within(10_000, () =>
      rb.connection.workflowService.getWorkflowExecutionHistory({
        namespace: rb.target.namespace,
        execution: { workflowId: handle.workflowId, runId },
        maximumPageSize: 1,
      }),
    );
    const payload =
      history.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    if (!payload) return {};
    const parsed = StartedInput.safeParse(defaultPayloadConverter.fromPayload(payload));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}
