import { CLEARANCE_TYPE } from '../../../workflows/clearance-names';
import { orUnknown, type RunbookClient } from '../client';
import { readClearance, type ClearanceHistory } from './clearance';
import { readHistory } from './events';
import { buildHistory, type RunbookHistory } from './record';
import { acrossRuns, historiesOfRuns } from './runs';
import { askStatus, describeRunbook } from '../observe';

/**
 * The history of a node's last run: its runbook's, or, when the node was cleared since, the clearance's
 * (who looked at the node and why).
 */
export async function readNodeHistory(
  rb: RunbookClient,
  id: string,
): Promise<RunbookHistory | ClearanceHistory> {
  const handle = rb.client.workflow.getHandle(id);
  const described = await orUnknown(id, rb.target, () => rb.within(10_000, () => handle.describe()));
  if (described.type !== CLEARANCE_TYPE) return readRunbookHistory(rb, id);
  const history = await rb.within(30_000, () => handle.fetchHistory());
  return readClearance(id, described.status.name, history.events ?? []);
}

/** The event histories of every run of the runbook, oldest first. */
export function eventsOfRuns(rb: RunbookClient, id: string) {
  return orUnknown(id, rb.target, () =>
    rb.within(30_000, () =>
      historiesOfRuns(async (runId) => {
        const history = await rb.client.workflow.getHandle(id, runId).fetchHistory();
        return history.events ?? [];
      }),
    ),
  );
}

/**
 * A runbook's history from Temporal's event history (every run's, when it continued as new), which the
 * server keeps whether or not a worker runs and after the runbook ended. Step notes live only in the runbook's status: a completed run returned it,
 * and a worker, when one polls, answers the status query (of a closed run too, by replaying it).
 */
export async function readRunbookHistory(rb: RunbookClient, id: string): Promise<RunbookHistory> {
  const { described, kind } = await describeRunbook(rb, id);
  const runs = await eventsOfRuns(rb, id);
  const facts = acrossRuns(runs.map(readHistory));
  if (facts.closed?.result) return buildHistory(id, kind, facts, facts.closed.result, 'result');
  const asked = await askStatus(rb, { workflowId: id, runId: '', taskQueue: described.taskQueue });
  return buildHistory(id, kind, facts, asked.status, 'status query');
}
