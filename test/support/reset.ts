import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { History } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';
import { readNodeMark, type NodeMarkReading } from '../../activities/runbook/node-marks';
import { markSourceOf } from '../../activities/runbook/node-marks-sdk';
import { nodeMarkId } from '../../workflows/node-mark-contracts';
import { harnessTarget } from './temporal';

type ResetRequest = temporal.api.workflowservice.v1.IResetWorkflowExecutionRequest;

/** A workflow task of a run's history, by its completed event, and the activity its commands scheduled first. */
export interface TaskPoint {
  task: number;
  before: string;
}

/** Every completed workflow task of `history` from `fromEvent` on, each with the first activity it scheduled. */
export function taskPoints(history: History, fromEvent = 0): TaskPoint[] {
  const events = history.events ?? [];
  const points: TaskPoint[] = [];
  for (let i = Math.max(fromEvent, 0); i < events.length; i++) {
    if (!events[i]?.workflowTaskCompletedEventAttributes) continue;
    const next = events.slice(i + 1).find((e) => e.activityTaskScheduledEventAttributes);
    const type = next?.activityTaskScheduledEventAttributes?.activityType?.name ?? 'nothing';
    points.push({ task: Number(events[i]?.eventId), before: type });
  }
  return points;
}

/**
 * What the Web UI's Reset button and `temporal workflow reset` do: the run from `runId` is replayed up to
 * the workflow task `task` completed and goes on from there as a new run; a base still running is terminated.
 */
export async function resetRun(
  client: Client,
  workflowId: string,
  runId: string,
  task: number,
  reason: string,
): Promise<{ run: WorkflowHandle; runId: string }> {
  const request = {
    namespace: harnessTarget().namespace,
    workflowExecution: { workflowId, runId },
    workflowTaskFinishEventId: task,
    reason,
    requestId: randomUUID(),
  } as unknown as ResetRequest;
  const { runId: resetRunId } = await client.workflowService.resetWorkflowExecution(request);
  if (!resetRunId) throw new Error(`the reset of ${workflowId} (run ${runId}) named no new run`);
  return { run: client.workflow.getHandle(workflowId, resetRunId), runId: resetRunId };
}

/**
 * The node's mark as it reads once the mark workflow closed, or after `ms` if it stays open (a mark left
 * by a run that did not end cleanly never closes by itself).
 */
export async function markOnceSettled(client: Client, node: string, ms: number): Promise<NodeMarkReading> {
  const timeout = new AbortController();
  await Promise.race([
    client.workflow
      .getHandle(nodeMarkId(node))
      .result()
      .catch(() => undefined),
    sleep(ms, undefined, { signal: timeout.signal }).catch(() => undefined),
  ]);
  timeout.abort();
  return readNodeMark(markSourceOf(client), node);
}
