import { deprecatePatch, getExternalWorkflowHandle, patched, workflowInfo } from '@temporalio/workflow';
import type { RunbookStatus } from '../contracts';
import { childReportSignal } from '../fleet/contracts';
import { FLEET_REPORTS_BOUNDED } from './revision';

/** Runbooks started by a fleet tell it when they wait, move on or end (see workflows/fleet.ts). */
export const FLEET_REPORTS = 'fleet-reports';

/** Reports told at once, whatever they say: a clean node tells about six, one with several waits a dozen. */
export const REPORTS_AT_ONCE = 16;

/** What the fleet last heard from a runbook: how many reports so far, and what the last one said when. */
export interface Told {
  count: number;
  waiting: boolean;
  decisions: number;
  atMs: number;
}

/**
 * Whether a changed status is told to the fleet now (FLEET_REPORTS_BOUNDED): always for the first
 * REPORTS_AT_ONCE reports; after that when the runbook ended, a person decided since, or it waits while the
 * fleet last heard it running (a waiting node holds its fleet), and else once a pause has passed since the
 * last report that doubles from a minute with each report past the first ones. A change not told now is
 * told with the next one that is: the fleet then hears the newest status.
 */
export function tellsNow(
  status: Pick<RunbookStatus, 'phase' | 'waiting' | 'decisions'>,
  told: Told | undefined,
  nowMs: number,
): boolean {
  return (
    told === undefined ||
    told.count < REPORTS_AT_ONCE ||
    !['running', 'waiting'].includes(status.phase) ||
    status.decisions.length !== told.decisions ||
    (status.waiting !== null && !told.waiting) ||
    nowMs - told.atMs >= 60_000 * 2 ** (told.count - REPORTS_AT_ONCE)
  );
}

/**
 * What a runbook run by a fleet sends its parent on each change of phase or wait; nothing for a runbook
 * started on its own (no parent: no patch marker, no command, its recorded histories replay unchanged).
 * A node whose evidence changes for days (a re-asked approval, a flapping container) tells its fleet a
 * few dozen times, not once per change (tellsNow): the fleet's history stays within its bound.
 */
export function parentReporter(): (status: RunbookStatus) => void {
  const parent = workflowInfo().parent;
  if (!parent) return () => undefined;
  deprecatePatch(FLEET_REPORTS);
  const fleet = getExternalWorkflowHandle(parent.workflowId, parent.runId);
  let last: (Told & { said: string }) | undefined;
  return (status) => {
    const said = `${status.phase} ${status.waiting?.evidence ?? ''}`;
    if (said === last?.said) return;
    const nowMs = new Date().getTime();
    // Asked only when a report is held back: runs recorded before never got past the first ones.
    if (!tellsNow(status, last, nowMs) && patched(FLEET_REPORTS_BOUNDED)) return;
    const seq = last?.count ?? 0;
    last = {
      said,
      count: seq + 1,
      waiting: status.waiting !== null,
      decisions: status.decisions.length,
      atMs: nowMs,
    };
    const report = {
      node: status.node,
      seq,
      phase: status.phase,
      waiting: status.waiting,
      ...(status.outcome !== undefined ? { outcome: status.outcome } : {}),
    };
    // A fleet that ended (or a cancelled scope) cannot be told; the runbook goes on either way.
    void fleet.signal(childReportSignal, report).catch(() => undefined);
  };
}
