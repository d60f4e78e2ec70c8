import { orUnknown, type RunbookClient } from '../client';
import { readHistory } from './events';
import { buildHistory, type RunbookHistory } from './record';
import { askStatus, describeRunbook } from '../observe';

/**
 * A runbook's history from Temporal's event history, which the server keeps whether or not a worker runs
 * and after the runbook ended. Step notes live only in the runbook's status: a completed run returned it,
 * and a worker, when one polls, answers the status query (of a closed run too, by replaying it).
 */
export async function readRunbookHistory(rb: RunbookClient, id: string): Promise<RunbookHistory> {
  const { handle, described, kind } = await describeRunbook(rb, id);
  const history = await orUnknown(id, rb.target, () => rb.within(30_000, () => handle.fetchHistory()));
  const facts = readHistory(history.events ?? []);
  if (facts.closed?.result) return buildHistory(id, kind, facts, facts.closed.result, 'result');
  const asked = await askStatus(rb, handle, described.taskQueue);
  return buildHistory(id, kind, facts, asked.status, 'status query');
}
