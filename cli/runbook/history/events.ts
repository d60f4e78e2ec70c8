import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { z } from 'zod';
import {
  Decision,
  RecordedDecision,
  RunbookStatus,
  type Phase,
  type RefusedDecision,
} from '../../../workflows/contracts';
import { MESH_WAITING_ON } from '../../../workflows/search-attributes';
import { phaseOfClosed } from '../exit-codes';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type Payload = temporal.api.common.v1.IPayload;

/** One activity the runbook scheduled, named by the step it served (its user-metadata summary). */
export interface HistoryActivity {
  step: string;
  activity: string;
  summary: string;
  scheduledAt: string;
  endedAt?: string;
  outcome: 'running' | 'completed' | 'failed' | 'timed out' | 'cancelled';
  attempt?: number;
  failure?: string;
}

/** A stretch of time the runbook waited at a gate (its MeshWaitingOn search attribute was set). */
export interface HistoryWait {
  gate: string;
  from: string;
  to?: string;
}

/** Everything a runbook's event history tells, without a worker to replay it. */
export interface HistoryFacts {
  workflowType: string;
  startedAt: string;
  input: { node?: string; module?: string; startedBy?: string };
  activities: HistoryActivity[];
  waits: HistoryWait[];
  /** Decisions the runbook accepted (the `decide` Update completed with the recorded decision). */
  decisions: RecordedDecision[];
  /** Decisions its handler refused (stale evidence, policy, four eyes): the Update failed with the sentence. */
  refused: RefusedDecision[];
  cancelRequested?: { at: string; by: string };
  closed?: { at: string; executionStatus: string; phase: Phase; outcome?: string; result?: RunbookStatus };
}

const StartedInput = z.object({ node: z.string(), module: z.string(), startedBy: z.string() }).partial();
const STEP_SUMMARY = /^([^:]+): (.+)$/;

function decode(payload: Payload | null | undefined): unknown {
  if (!payload) return undefined;
  try {
    return defaultPayloadConverter.fromPayload(payload);
  } catch {
    return undefined;
  }
}

/** An event's time; its seconds are a Long from the server, a number when built by hand. */
function timeOf(event: HistoryEvent): string {
  const seconds = Number(String(event.eventTime?.seconds ?? 0));
  return new Date(seconds * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6)).toISOString();
}

const failureText = (failure: temporal.api.failure.v1.IFailure | null | undefined) =>
  failure?.cause?.message ? `${failure.message ?? ''}: ${failure.cause.message}` : (failure?.message ?? '');

/**
 * Reads a runbook's event history: its input, every activity by step, the gates it waited at, the
 * decisions accepted and refused, and how it closed. Pure: the events in, the facts out.
 */
export function readHistory(events: HistoryEvent[]): HistoryFacts {
  const facts: HistoryFacts = {
    workflowType: '',
    startedAt: new Date(0).toISOString(),
    input: {},
    activities: [],
    waits: [],
    decisions: [],
    refused: [],
  };
  const activities = new Map<string, HistoryActivity>();
  const updates = new Map<string, { decision: Decision; at: string }>();
  let waitingOn: HistoryWait | undefined;

  const endActivity = (
    scheduledEventId: unknown,
    at: string,
    outcome: HistoryActivity['outcome'],
    failure?: string,
  ) => {
    const activity = activities.get(String(scheduledEventId));
    if (!activity) return;
    activity.endedAt = at;
    activity.outcome = outcome;
    if (failure) activity.failure = failure;
  };

  for (const event of events) {
    const at = timeOf(event);
    const started = event.workflowExecutionStartedEventAttributes;
    if (started) {
      facts.workflowType = started.workflowType?.name ?? '';
      facts.startedAt = at;
      const input = StartedInput.safeParse(decode(started.input?.payloads?.[0]));
      if (input.success) facts.input = input.data;
    }
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) {
      const summary = String(decode(event.userMetadata?.summary) ?? '');
      const activity: HistoryActivity = {
        step: STEP_SUMMARY.exec(summary)?.[1] ?? 'start',
        activity: scheduled.activityType?.name ?? 'activity',
        summary,
        scheduledAt: at,
        outcome: 'running',
      };
      activities.set(String(event.eventId), activity);
      facts.activities.push(activity);
    }
    const attempt = event.activityTaskStartedEventAttributes;
    if (attempt) {
      const activity = activities.get(String(attempt.scheduledEventId));
      if (activity && attempt.attempt) activity.attempt = attempt.attempt;
    }
    const completed = event.activityTaskCompletedEventAttributes;
    if (completed) endActivity(completed.scheduledEventId, at, 'completed');
    const failed = event.activityTaskFailedEventAttributes;
    if (failed) endActivity(failed.scheduledEventId, at, 'failed', failureText(failed.failure));
    const timedOut = event.activityTaskTimedOutEventAttributes;
    if (timedOut) endActivity(timedOut.scheduledEventId, at, 'timed out', failureText(timedOut.failure));
    const cancelled = event.activityTaskCanceledEventAttributes;
    if (cancelled) endActivity(cancelled.scheduledEventId, at, 'cancelled');

    const upsert = event.upsertWorkflowSearchAttributesEventAttributes;
    const gatePayload = upsert?.searchAttributes?.indexedFields?.[MESH_WAITING_ON.name];
    if (gatePayload) {
      const gate = decode(gatePayload);
      const now = Array.isArray(gate) ? gate[0] : gate;
      if (waitingOn && waitingOn.gate !== now) waitingOn.to = at;
      if (typeof now === 'string' && now !== waitingOn?.gate) {
        waitingOn = { gate: now, from: at };
        facts.waits.push(waitingOn);
      } else if (typeof now !== 'string') waitingOn = undefined;
    }

    const accepted = event.workflowExecutionUpdateAcceptedEventAttributes;
    if (accepted) {
      const decision = Decision.safeParse(decode(accepted.acceptedRequest?.input?.args?.payloads?.[0]));
      const id = accepted.acceptedRequest?.meta?.updateId;
      if (decision.success && id) updates.set(id, { decision: decision.data, at });
    }
    const updated = event.workflowExecutionUpdateCompletedEventAttributes;
    if (updated) {
      const asked = updates.get(updated.meta?.updateId ?? '');
      const recorded = RecordedDecision.safeParse(decode(updated.outcome?.success?.payloads?.[0]));
      if (recorded.success) facts.decisions.push(recorded.data);
      else if (asked && updated.outcome?.failure) {
        facts.refused.push({
          ...asked.decision,
          gate: asked.decision.gate ?? waitingOn?.gate ?? '?',
          at: asked.at,
          refusal: updated.outcome.failure.message ?? 'refused',
        });
      }
    }
    const cancelRequested = event.workflowExecutionCancelRequestedEventAttributes;
    if (cancelRequested) facts.cancelRequested = { at, by: cancelRequested.identity || 'someone unknown' };

    const closed = closing(event, at);
    if (closed) {
      if (waitingOn) waitingOn.to = at;
      facts.closed = closed;
    }
  }
  return facts;
}

function closing(event: HistoryEvent, at: string): HistoryFacts['closed'] {
  const completed = event.workflowExecutionCompletedEventAttributes;
  if (completed) {
    const result = RunbookStatus.safeParse(decode(completed.result?.payloads?.[0]));
    return result.success
      ? {
          at,
          executionStatus: 'COMPLETED',
          phase: result.data.phase,
          result: result.data,
          ...(result.data.outcome ? { outcome: result.data.outcome } : {}),
        }
      : { at, executionStatus: 'COMPLETED', phase: 'completed' };
  }
  const failed = event.workflowExecutionFailedEventAttributes;
  if (failed) {
    const type = failed.failure?.applicationFailureInfo?.type ?? undefined;
    return {
      at,
      executionStatus: 'FAILED',
      phase: phaseOfClosed('FAILED', type),
      outcome: failureText(failed.failure),
    };
  }
  if (event.workflowExecutionCanceledEventAttributes)
    return { at, executionStatus: 'CANCELLED', phase: 'aborted', outcome: 'cancelled' };
  const terminated = event.workflowExecutionTerminatedEventAttributes;
  if (terminated) {
    return {
      at,
      executionStatus: 'TERMINATED',
      phase: 'failed',
      outcome: `terminated${terminated.reason ? `: ${terminated.reason}` : ''}`,
    };
  }
  if (event.workflowExecutionTimedOutEventAttributes)
    return { at, executionStatus: 'TIMED_OUT', phase: 'failed', outcome: 'timed out' };
  return undefined;
}
