import { openRuns, type OpenRun } from '../../../client/revision-runs';
import { OLDEST_SUPPORTED_REVISION, RUNBOOK_REVISION } from '../../../workflows/runbook/revision';
import { printJson, printLine } from '../../output';
import { forTerminal } from '../../terminal-text';
import type { RunbookReader } from '../client';

export interface RevisionRow {
  /** null: runs no worker ran yet, which start on whichever revision runs them first. */
  revision: number | null;
  open: number;
  /** What this code does with them: runs them, replays them, or cannot (retired). */
  thisCode: 'runs' | 'replays' | 'retired' | 'not started';
  runs: string[];
}

function standing(revision: number | undefined): RevisionRow['thisCode'] {
  if (revision === undefined) return 'not started';
  if (revision < OLDEST_SUPPORTED_REVISION) return 'retired';
  return revision === RUNBOOK_REVISION ? 'runs' : 'replays';
}

/** The open runs per revision, newest revision first. */
export function revisionRows(open: OpenRun[]): RevisionRow[] {
  const byRevision = new Map<number | undefined, string[]>();
  for (const { run, revision } of open)
    byRevision.set(revision, [...(byRevision.get(revision) ?? []), `${run.workflowId} (${run.type})`]);
  return [...byRevision.entries()]
    .sort(([a], [b]) => (b ?? Infinity) - (a ?? Infinity))
    .map(([revision, runs]) => ({
      revision: revision ?? null,
      open: runs.length,
      thisCode: standing(revision),
      runs,
    }));
}

/** `mesh runbook list --revision`: which revisions the open runs on the task queue need. */
export async function listRevisions(rb: RunbookReader, json: boolean): Promise<void> {
  const rows = revisionRows(await openRuns(rb.reads, rb.taskQueue));
  if (json) return printJson(rows);
  printLine(
    `this code is revision ${RUNBOOK_REVISION} and replays revisions ${OLDEST_SUPPORTED_REVISION}–${RUNBOOK_REVISION}; open runs on task queue ${rb.taskQueue}:`,
  );
  if (rows.length === 0) return printLine('  none: any revision may be retired here');
  for (const row of forTerminal(rows)) {
    const names =
      row.thisCode === 'runs'
        ? ''
        : `: ${row.runs.slice(0, 10).join(', ')}${row.runs.length > 10 ? ', …' : ''}`;
    printLine(`  revision ${row.revision ?? '-'}  ${row.open} open  ${row.thisCode}${names}`);
  }
}
