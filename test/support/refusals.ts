import assert from 'node:assert/strict';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import type { RunbookStatus } from '../../workflows/contracts';

/** What the first task of a runbook may do before it refuses its input: read, never change. */
export const READS_BEFORE_TRUST = ['runbookPolicy', 'previousRun'];

/**
 * A run that must end failed: its failure's type and sentence, the final status it carries (read from its
 * close event, never by asking a worker to replay it), and every activity it scheduled.
 */
export async function failedRun(
  handle: WorkflowHandle,
  timeoutMs = 120_000,
): Promise<{ type: string; message: string; status?: RunbookStatus; activities: string[] }> {
  let timer: NodeJS.Timeout | undefined;
  const stillRunning = new Promise<'still running'>((resolve) => {
    timer = setTimeout(() => resolve('still running'), timeoutMs);
  });
  const ended = handle.result().then(
    () => 'completed' as const,
    (e: unknown) => e,
  );
  const error = await Promise.race([ended, stillRunning]).finally(() => clearTimeout(timer));
  if (error === 'completed' || error === 'still running')
    assert.fail(`${handle.workflowId}: ${error} where it should have failed`);
  assert.ok(error instanceof WorkflowFailedError, `not a workflow failure: ${String(error)}`);
  const cause = error.cause;
  assert.ok(cause instanceof ApplicationFailure, `not an application failure: ${String(cause)}`);
  const history = await handle.fetchHistory();
  const activities = (history.events ?? []).flatMap((event) => {
    const type = event.activityTaskScheduledEventAttributes?.activityType?.name;
    return type ? [type] : [];
  });
  const status = cause.details?.[0] as RunbookStatus | undefined;
  return { type: cause.type ?? '', message: cause.message, ...(status ? { status } : {}), activities };
}

/** Until `handle`'s history shows a completed activity of `type`; its result. */
export async function activityCompleted(handle: WorkflowHandle, type: string, timeoutMs = 60_000) {
  for (const deadline = Date.now() + timeoutMs; ;) {
    const events = (await handle.fetchHistory()).events ?? [];
    const scheduled = events
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type)
      .map((e) => Number(e.eventId));
    const completed = events.find((e) =>
      scheduled.includes(Number(e.activityTaskCompletedEventAttributes?.scheduledEventId ?? -1)),
    );
    if (completed) {
      const payload = completed.activityTaskCompletedEventAttributes?.result?.payloads?.[0]?.data;
      return payload ? (JSON.parse(Buffer.from(payload).toString('utf8')) as unknown) : undefined;
    }
    if (Date.now() > deadline)
      throw new Error(`${handle.workflowId} completed no ${type} in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
