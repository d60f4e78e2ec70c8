import { Context, getClient } from '@temporalio/activity';
import { temporal } from '@temporalio/proto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { lastRunOf, type LastRun } from './last-run';
import { nodeTaskQueue } from '../../workflows/contracts';
import { heartbeatWhile } from '../../base/activity-heartbeat';

/**
 * A poller is listed for a while after it stopped; a live one asks again at least every long poll (about a
 * minute), so one not seen for this long is gone.
 */
const POLLER_SEEN_MS = 90_000;

/** A worker polling a node's queue, and the host its identity says it works on (node-worker.ts). */
export interface NodePoller {
  identity: string;
  /** `engine …, machine …`; absent for a worker of a release that did not say. */
  host?: string;
}

function hostOf(identity: string, node: string): string | undefined {
  const said = /\[([a-z0-9-]+) on (engine [^\]]+)\]$/.exec(identity);
  return said && said[1] === node ? said[2] : undefined;
}

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
     * a runbook and how it ended, or none (./last-run.ts, which `start` asks too).
     */
    previousRun({ workflowId, runId }: RunRef): Promise<LastRun> {
      return heartbeatWhile(lastRunOf(getClient(), workflowId, runId));
    },

    /** The workers seen polling `node`'s own queue lately, each with the host it says it is on. */
    async nodeQueuePollers({ node }: { node: string }): Promise<NodePoller[]> {
      const client = getClient();
      const { enums } = temporal.api;
      const response = await client.workflowService.describeTaskQueue({
        namespace: client.options.namespace,
        taskQueue: {
          name: nodeTaskQueue(Context.current().info.taskQueue, node),
          kind: enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL,
        },
        taskQueueType: enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
      });
      const now = Date.now();
      return (response.pollers ?? [])
        .filter((p) => now - Number(p.lastAccessTime?.seconds ?? 0) * 1000 < POLLER_SEEN_MS)
        .map((p) => {
          const identity = p.identity ?? 'a worker without identity';
          const host = hostOf(identity, node);
          return host ? { identity, host } : { identity };
        })
        .sort((a, b) => (a.identity < b.identity ? -1 : 1));
    },
  };
}
