import { getClient } from '@temporalio/activity';
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';

export interface RunRef {
  workflowId: string;
  runId: string;
}

/** How the run before this one under the same workflow id ended. */
export type PreviousRun =
  | { kind: 'none' }
  | { kind: 'cleared'; by: string; reason: string; at: string }
  | { kind: 'runbook'; runId: string; type: string; status: string; failureType?: string; outcome?: string };

/** Facts about other runs, read through the worker's own Temporal client. */
export function createRunActivities() {
  return {
    /** Whether a run is still open; a run Temporal does not know is not. */
    async workflowIsOpen({ workflowId, runId }: RunRef): Promise<boolean> {
      try {
        const described = await getClient().workflow.getHandle(workflowId, runId).describe();
        return described.status.name === 'RUNNING';
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return false;
        throw error;
      }
    },

    /** The newest run under `workflowId` before `runId`: a clearance, a runbook and how it ended, or none. */
    async previousRun({ workflowId, runId }: RunRef): Promise<PreviousRun> {
      const client = getClient();
      const query = `WorkflowId = '${workflowId.replace(/'/g, "\\'")}'`;
      let newest: { runId: string; type: string; status: string; start: number } | undefined;
      for await (const run of client.workflow.list({ query })) {
        if (run.runId === runId) continue;
        const start = run.startTime.getTime();
        if (!newest || start > newest.start)
          newest = { runId: run.runId, type: run.type, status: run.status.name, start };
      }
      if (!newest) return { kind: 'none' };
      const handle = client.workflow.getHandle(workflowId, newest.runId);
      if (newest.type === 'clearNode') {
        const cleared = (await handle.result()) as { by: string; reason: string; at: string };
        return { kind: 'cleared', ...cleared };
      }
      const ended = {
        kind: 'runbook' as const,
        runId: newest.runId,
        type: newest.type,
        status: newest.status,
      };
      if (newest.status !== 'FAILED') return ended;
      try {
        await handle.result();
        return ended;
      } catch (error) {
        const cause = error instanceof WorkflowFailedError ? error.cause : undefined;
        if (cause instanceof ApplicationFailure && cause.type)
          return { ...ended, failureType: cause.type, outcome: cause.message };
        return ended;
      }
    },
  };
}
