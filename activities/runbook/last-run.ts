import { WorkflowFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Clearance } from '../../workflows/clear-node';
import { FAILURE } from '../../workflows/contracts';
import { CLEARANCE_TYPE } from '../../workflows/clearance-names';
import { visibilityString } from '../../base/visibility-string';

/** How the last run under a node's runbook id went: a clearance, a runbook and how it ended, or none. */
export type LastRun =
  | { kind: 'none' }
  | ({ kind: 'cleared'; runId: string } & Clearance)
  | {
      kind: 'runbook';
      runId: string;
      type: string;
      /** Temporal's word for how it stands: RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, TIMED_OUT. */
      status: string;
      /** The failure type a failed runbook threw (contracts FAILURE). */
      failureType?: string;
      outcome?: string;
    };

interface Run {
  runId: string;
  type: string;
  status: string;
  start: number;
}

/**
 * The newest run under `workflowId` (other than `exceptRunId`) that says something about the node. Runs
 * that changed nothing are passed over: a runbook refused because the node needed clearing (so a second
 * attempt is refused too), and a clearance that did not complete (it cleared nothing).
 */
export async function lastRunOf(client: Client, workflowId: string, exceptRunId?: string): Promise<LastRun> {
  const runs: Run[] = [];
  const query = `WorkflowId = ${visibilityString(workflowId)}`;
  for await (const run of client.workflow.list({ query })) {
    if (run.runId === exceptRunId) continue;
    runs.push({ runId: run.runId, type: run.type, status: run.status.name, start: run.startTime.getTime() });
  }
  runs.sort((a, b) => b.start - a.start);
  for (const run of runs) {
    const told = await whatItTells(client, workflowId, run);
    if (told) return told;
  }
  return { kind: 'none' };
}

async function whatItTells(client: Client, workflowId: string, run: Run): Promise<LastRun | undefined> {
  const handle = client.workflow.getHandle(workflowId, run.runId);
  if (run.type === CLEARANCE_TYPE) {
    if (run.status !== 'COMPLETED') return undefined;
    return { kind: 'cleared', runId: run.runId, ...((await handle.result()) as Clearance) };
  }
  const told = { kind: 'runbook' as const, runId: run.runId, type: run.type, status: run.status };
  if (run.status !== 'FAILED') return told;
  try {
    await handle.result();
    return told;
  } catch (error) {
    const cause = error instanceof WorkflowFailedError ? error.cause : undefined;
    if (!(cause instanceof ApplicationFailure) || !cause.type) return told;
    if (cause.type === FAILURE.nodeNeedsClearing) return undefined;
    return { ...told, failureType: cause.type, outcome: cause.message };
  }
}

/** Whether a node's last run left it needing a person's look before another runbook may start there. */
export function needsClearing(last: LastRun): last is Extract<LastRun, { kind: 'runbook' }> {
  return last.kind === 'runbook' && last.failureType === FAILURE.rollbackFailed;
}
