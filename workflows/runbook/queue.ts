import { workflowInfo } from '@temporalio/workflow';
import { QUEUE_MEMO } from '../contracts';

/**
 * The task queue the runbook was started on, as its start recorded it. The lock keeper and the node queues
 * are named after it, and a replay (which runs on a queue of its own) must name them the same; a runbook
 * started without `startRunbook` falls back to the queue it runs on.
 */
export function runbookQueue(): string {
  const recorded = workflowInfo().memo?.[QUEUE_MEMO];
  return typeof recorded === 'string' ? recorded : workflowInfo().taskQueue;
}
