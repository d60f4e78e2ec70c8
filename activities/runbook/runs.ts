import { getClient } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import { lastRunOf, type LastRun } from '../../client/last-run';
import { heartbeatWhile } from '../heartbeat';

export interface RunRef {
  workflowId: string;
  runId: string;
}

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

    /**
     * The newest run under `workflowId` before `runId` that says something about the node: a clearance,
     * a runbook and how it ended, or none (client/last-run.ts, which `start` asks too).
     */
    previousRun({ workflowId, runId }: RunRef): Promise<LastRun> {
      return heartbeatWhile(lastRunOf(getClient(), workflowId, runId));
    },
  };
}
