import type { temporal } from '@temporalio/proto';
import type { HistoryFacts } from './events';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** More runs than a fleet of 10,000 nodes makes under its history bound; a longer chain is cut there. */
const MOST_RUNS = 200;

/**
 * The event histories of every run of a runbook, oldest first: a fleet past its history bound continued as
 * new under the same id, and each run's first event names the run before (`fetch(undefined)`: the latest).
 */
export async function historiesOfRuns(
  fetch: (runId: string | undefined) => Promise<HistoryEvent[]>,
): Promise<HistoryEvent[][]> {
  const runs = [await fetch(undefined)];
  while (runs.length < MOST_RUNS) {
    const before = runs[0]?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    if (!before) break;
    runs.unshift(await fetch(before));
  }
  return runs;
}

/** One runbook's facts from its runs' (oldest first): started as the first, closed as the last. */
export function acrossRuns(runs: HistoryFacts[]): HistoryFacts {
  const [first, ...later] = runs;
  if (!first) throw new Error('a runbook has at least one run');
  const last = later.at(-1) ?? first;
  const cancelRequested = [...runs].reverse().find((run) => run.cancelRequested)?.cancelRequested;
  return {
    workflowType: first.workflowType,
    startedAt: first.startedAt,
    input: first.input,
    activities: runs.flatMap((run) => run.activities),
    waits: runs.flatMap((run) => run.waits),
    decisions: runs.flatMap((run) => run.decisions),
    refused: runs.flatMap((run) => run.refused),
    ...(cancelRequested ? { cancelRequested } : {}),
    ...(last.closed ? { closed: last.closed } : {}),
  };
}
