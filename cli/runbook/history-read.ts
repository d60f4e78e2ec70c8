import { UsageError } from '../errors';
import { orUnknown, type RunbookClient } from './client';
import { readHistory } from './history-events';
import { buildHistory, type RunbookHistory } from './history-record';
import { kindList, kindOfWorkflowType } from './kinds';
import { askStatus } from './observe';

/**
 * A runbook's history from Temporal's event history, which the server keeps whether or not a worker runs
 * and after the runbook ended. Step notes live only in the runbook's status: a completed run returned it,
 * and a worker, when one polls, answers the status query (of a closed run too, by replaying it).
 */
export async function readRunbookHistory(rb: RunbookClient, id: string): Promise<RunbookHistory> {
  const handle = rb.client.workflow.getHandle(id);
  const described = await orUnknown(id, rb.target, () => rb.within(10_000, () => handle.describe()));
  const kind = kindOfWorkflowType(described.type);
  if (kind === undefined) {
    throw new UsageError(
      `${id} is a ${described.type} workflow, not a runbook (the kinds are ${kindList()}).`,
      'See the runbooks with `mesh runbook list`.',
    );
  }
  const history = await orUnknown(id, rb.target, () => rb.within(30_000, () => handle.fetchHistory()));
  const facts = readHistory(history.events ?? []);
  if (facts.closed?.result) return buildHistory(id, kind, facts, facts.closed.result, 'result');
  const asked = await askStatus(rb, handle, described.taskQueue);
  return buildHistory(id, kind, facts, asked.status, 'status query');
}
