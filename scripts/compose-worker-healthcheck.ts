import { hostname } from 'node:os';
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { taskQueueFromEnv } from '../cli/runbook/options';
import { temporalConnection } from '../worker/connection';

/**
 * The worker container's health check (Dockerfile HEALTHCHECK): healthy when Temporal lists a poller of
 * this container (the SDK's default identity is `<pid>@<hostname>`) on the runbook task queue, seen within
 * the last two minutes. A worker that lost Temporal, or never got past bundling, is unhealthy. Exit 0 or 1.
 */
const FRESH_MS = 120_000;

async function main(): Promise<string> {
  const { address, namespace, options } = temporalConnection();
  const taskQueue = taskQueueFromEnv();
  const connection = await Connection.connect({ ...options, connectTimeout: 5_000 });
  try {
    const suffix = `@${hostname()}`;
    const response = await connection.workflowService.describeTaskQueue({
      namespace,
      taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    const now = Date.now();
    const ours = (response.pollers ?? []).filter((poller) => poller.identity?.endsWith(suffix));
    const fresh = ours.filter((poller) => {
      const seconds = Number(poller.lastAccessTime?.seconds ?? 0);
      return now - seconds * 1000 < FRESH_MS;
    });
    if (fresh.length === 0)
      throw new Error(`no poller of ${hostname()} on task queue ${taskQueue} at ${address} (${namespace})`);
    return `${fresh.map((poller) => poller.identity).join(', ')} polls ${taskQueue} at ${address}`;
  } finally {
    await connection.close();
  }
}

main().then(
  (line) => {
    process.stdout.write(`healthy: ${line}\n`);
    process.exit(0);
  },
  (error: unknown) => {
    process.stdout.write(`unhealthy: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
