import type { NativeConnection } from '@temporalio/worker';
import { Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import { TASK_QUEUE } from '../workflows/contracts';
import { runbookLogContext } from './log-context';
import { workflowsFromSource } from './workflow-code';

export interface RunbookWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  deps: ActivityDeps;
  taskQueue?: string;
  /** A pre-built workflow bundle; by default the workflows are bundled from source at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  identity?: string;
}

/** The one way a runbook worker is built, in production and in tests. */
export async function createRunbookWorker(options: RunbookWorkerOptions): Promise<Worker> {
  // A pre-built bundle holds its workflow interceptors already (scripts/run-tests.ts bundles them in).
  const { interceptors, ...code } = options.workflowBundle
    ? { workflowBundle: options.workflowBundle, interceptors: {} }
    : workflowsFromSource();
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue ?? TASK_QUEUE,
    activities: createActivities(options.deps),
    ...(options.identity ? { identity: options.identity } : {}),
    // Progress heartbeats reach the server (CLI, Web UI) within seconds, not at 80% of the heartbeat timeout.
    maxHeartbeatThrottleInterval: '2 seconds',
    ...code,
    interceptors: { ...interceptors, activity: [runbookLogContext] },
  });
}
