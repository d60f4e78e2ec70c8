import { getExternalWorkflowHandle, patched, workflowInfo } from '@temporalio/workflow';
import type { RunbookStatus } from '../contracts';
import { childReportSignal } from '../fleet/contracts';

/** Runbooks started by a fleet tell it when they wait, move on or end (see workflows/fleet.ts). */
export const FLEET_REPORTS = 'fleet-reports';

/**
 * What a runbook run by a fleet sends its parent on each change of phase or wait; nothing for a runbook
 * started on its own (no parent: no patch marker, no command, its recorded histories replay unchanged).
 */
export function parentReporter(): (status: RunbookStatus) => void {
  const parent = workflowInfo().parent;
  if (!parent || !patched(FLEET_REPORTS)) return () => undefined;
  const fleet = getExternalWorkflowHandle(parent.workflowId, parent.runId);
  let seq = 0;
  let told: string | undefined;
  return (status) => {
    const now = `${status.phase} ${status.waiting?.evidence ?? ''}`;
    if (now === told) return;
    told = now;
    const report = {
      node: status.node,
      seq: seq++,
      phase: status.phase,
      waiting: status.waiting,
      ...(status.outcome !== undefined ? { outcome: status.outcome } : {}),
    };
    // A fleet that ended (or a cancelled scope) cannot be told; the runbook goes on either way.
    void fleet.signal(childReportSignal, report).catch(() => undefined);
  };
}
