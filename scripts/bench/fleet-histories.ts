import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { historyFacts, type HistoryFacts } from './history-facts';
import { summarize, type Summary } from './stats';

/** What the histories of a fleet's runbooks hold: the fleet's own over all its runs, and per node. */
export interface FleetHistories {
  /** Every run of the fleet's workflow id (more than one once it continues as new). */
  parent: {
    runs: number;
    events: number;
    bytes: number;
    workflowTasks: number;
    /** The largest single run: what the history bound is about. */
    maxRunEvents: number;
    maxRunBytes: number;
  };
  /** Each node's own runbook (the fleet's child), one sample per node. */
  perNode: { events: Summary | undefined; bytes: Summary | undefined; workflowTasks: Summary | undefined };
  /** Nodes whose runbook the fleet never started (it ended before them). */
  notStarted: number;
}

const FETCHING_AT_ONCE = 8;
const GRPC_NOT_FOUND = 5;
const neverStarted = (error: unknown) =>
  error instanceof WorkflowNotFoundError || (error as { code?: unknown }).code === GRPC_NOT_FOUND;
const tasksOf = (facts: HistoryFacts) => facts.byType.WORKFLOW_TASK_COMPLETED ?? 0;

async function runsOf(client: Client, workflowId: string): Promise<HistoryFacts[]> {
  const facts: HistoryFacts[] = [];
  for await (const run of client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
    facts.push(historyFacts(await client.workflow.getHandle(workflowId, run.runId).fetchHistory()));
  return facts;
}

/** Reads every run of the fleet's id and each node's runbook history, a few at a time. */
export async function fleetHistories(
  client: Client,
  fleetId: string,
  nodeIds: string[],
): Promise<FleetHistories> {
  const parentRuns = await runsOf(client, fleetId);
  const nodes: HistoryFacts[] = [];
  for (let i = 0; i < nodeIds.length; i += FETCHING_AT_ONCE)
    nodes.push(
      ...(
        await Promise.all(
          nodeIds.slice(i, i + FETCHING_AT_ONCE).map(async (id) => {
            const history = await client.workflow
              .getHandle(id)
              .fetchHistory()
              .catch((error: unknown) => {
                if (neverStarted(error)) return undefined;
                throw error;
              });
            return history ? [historyFacts(history)] : [];
          }),
        )
      ).flat(),
    );
  const sum = (pick: (f: HistoryFacts) => number) => parentRuns.reduce((total, f) => total + pick(f), 0);
  return {
    parent: {
      runs: parentRuns.length,
      events: sum((f) => f.events),
      bytes: sum((f) => f.bytes),
      workflowTasks: sum(tasksOf),
      maxRunEvents: Math.max(0, ...parentRuns.map((f) => f.events)),
      maxRunBytes: Math.max(0, ...parentRuns.map((f) => f.bytes)),
    },
    perNode: {
      events: summarize(nodes.map((f) => f.events)),
      bytes: summarize(nodes.map((f) => f.bytes)),
      workflowTasks: summarize(nodes.map(tasksOf)),
    },
    notStarted: nodeIds.length - nodes.length,
  };
}
