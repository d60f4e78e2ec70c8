import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** A time span in ms since the epoch, from server event times. */
export interface Span {
  from: number;
  to: number;
}

/** One activity as the history records it: the step its summary names, and when its last attempt ran. */
export interface ActivitySpan extends Span {
  type: string;
  /** The step the workflow interceptor wrote before `: ` in the activity's summary; '' when there is none. */
  step: string;
  scheduledAt: number;
}

/** What the bench reads from one runbook's event history. */
export interface HistoryFacts {
  events: number;
  /** The history as Temporal serializes it (protobuf), in bytes. */
  bytes: number;
  /** Events by type (`WORKFLOW_TASK_COMPLETED`: 27), to tell where two histories of one runbook differ. */
  byType: Record<string, number>;
  /** Activities that closed (completed, failed, timed out or cancelled), with their last attempt's span. */
  activities: ActivitySpan[];
  /** Durable timers that fired: the runbook slept from `from` to `to`. */
  timers: Span[];
}

/** An event's time in ms; seconds are a Long from the server. */
export function eventTime(event: HistoryEvent): number {
  return (
    Number(String(event.eventTime?.seconds ?? 0)) * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6)
  );
}

function summaryOf(event: HistoryEvent): string {
  const payload = event.userMetadata?.summary;
  if (!payload) return '';
  try {
    return String(defaultPayloadConverter.fromPayload(payload));
  } catch {
    return '';
  }
}

/**
 * Activities, fired timers, event count and size of one history. An activity's span is its
 * ActivityTaskStarted event time (the last attempt's start) to the event that closed it.
 */
export function historyFacts(history: History): HistoryFacts {
  const events = history.events ?? [];
  const scheduled = new Map<string, { type: string; step: string; at: number }>();
  const started = new Map<string, number>();
  const timerStarts = new Map<string, number>();
  const activities: ActivitySpan[] = [];
  const timers: Span[] = [];
  const byType: Record<string, number> = {};
  for (const event of events) {
    const type = temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? String(event.eventType);
    const name = type.replace(/^EVENT_TYPE_/, '');
    byType[name] = (byType[name] ?? 0) + 1;
    const at = eventTime(event);
    const id = String(event.eventId);
    const s = event.activityTaskScheduledEventAttributes;
    if (s) {
      const step = /^([^:]+): /.exec(summaryOf(event))?.[1] ?? '';
      scheduled.set(id, { type: s.activityType?.name ?? '?', step, at });
    }
    const attempt = event.activityTaskStartedEventAttributes;
    if (attempt) started.set(String(attempt.scheduledEventId), at);
    const closedFrom =
      event.activityTaskCompletedEventAttributes ??
      event.activityTaskFailedEventAttributes ??
      event.activityTaskTimedOutEventAttributes ??
      event.activityTaskCanceledEventAttributes;
    if (closedFrom) {
      const key = String(closedFrom.scheduledEventId);
      const what = scheduled.get(key);
      if (what) {
        const from = started.get(key) ?? at;
        activities.push({ type: what.type, step: what.step, scheduledAt: what.at, from, to: at });
      }
    }
    const timer = event.timerStartedEventAttributes;
    if (timer?.timerId) timerStarts.set(timer.timerId, at);
    const fired = event.timerFiredEventAttributes;
    const firedStart = fired?.timerId ? timerStarts.get(fired.timerId) : undefined;
    if (firedStart !== undefined) timers.push({ from: firedStart, to: at });
  }
  return {
    events: events.length,
    bytes: temporal.api.history.v1.History.encode(history).finish().length,
    byType,
    activities,
    timers,
  };
}
