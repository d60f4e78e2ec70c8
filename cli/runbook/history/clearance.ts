import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { z } from 'zod';
import { colour } from '../../output';
import { isoSeconds } from '../time-format';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** `mesh runbook history` of a node whose last run is a clearance: who looked at it, what they found and did. */
export interface ClearanceHistory {
  id: string;
  kind: 'clearance';
  node: string;
  by: string;
  reason: string;
  startedAt: string;
  /** Temporal's word for how it stands: COMPLETED once recorded. */
  executionStatus: string;
  /** When the clearance was recorded (its result), once it completed. */
  clearedAt?: string;
}

/** A history is a clearance's by its kind, which no runbook kind shares. */
export function isClearance(history: { kind: string }): history is ClearanceHistory {
  return history.kind === 'clearance';
}

const Started = z.object({ node: z.string(), by: z.string(), reason: z.string() }).partial();
const Cleared = z.object({ at: z.string() });

function decode(payload: temporal.api.common.v1.IPayload | null | undefined): unknown {
  if (!payload) return undefined;
  try {
    return defaultPayloadConverter.fromPayload(payload);
  } catch {
    return undefined;
  }
}

function timeOf(event: HistoryEvent): string {
  const seconds = Number(String(event.eventTime?.seconds ?? 0));
  return new Date(seconds * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6)).toISOString();
}

/** Reads a clearance's event history: its input (node, by, reason) and when it was recorded. Pure. */
export function readClearance(id: string, executionStatus: string, events: HistoryEvent[]): ClearanceHistory {
  const history: ClearanceHistory = {
    id,
    kind: 'clearance',
    node: '?',
    by: '?',
    reason: '?',
    startedAt: new Date(0).toISOString(),
    executionStatus,
  };
  for (const event of events) {
    const started = event.workflowExecutionStartedEventAttributes;
    if (started) {
      const input = Started.safeParse(decode(started.input?.payloads?.[0]));
      if (input.success) Object.assign(history, input.data);
      history.startedAt = timeOf(event);
    }
    const completed = event.workflowExecutionCompletedEventAttributes;
    if (completed) {
      const result = Cleared.safeParse(decode(completed.result?.payloads?.[0]));
      if (result.success) history.clearedAt = result.data.at;
    }
  }
  return history;
}

export function renderClearance(history: ClearanceHistory): string[] {
  const when = history.clearedAt
    ? `cleared at ${isoSeconds(history.clearedAt)}`
    : `started at ${isoSeconds(history.startedAt)}, ${history.executionStatus.toLowerCase()}`;
  return [
    `${colour.bold(history.id)}  clearance of ${history.node} by ${history.by}, ${when}`,
    `  reason: ${history.reason}`,
    history.clearedAt
      ? `no runbook ran on ${history.node} since; the next may start`
      : `not recorded: ${history.node} still counts as not cleared`,
  ];
}
