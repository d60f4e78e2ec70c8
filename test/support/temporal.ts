import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker, type RuntimeOptions } from '@temporalio/worker';
import { createActivities, type Activities, type ActivityDeps } from '../../activities';
import { createRunbookWorker } from '../../worker/create-worker';
import { workflowsFromSource } from '../../worker/workflow-code';

/** Set by the harness (scripts/run-tests.ts): the shared dev server and a workflow bundle built once. */
export function harnessTarget(): { address: string; namespace: string; bundle?: string } {
  const address = process.env.TEMPORAL_ADDRESS;
  if (!address) throw new Error('TEMPORAL_ADDRESS is not set: run tests through scripts/run-tests.ts');
  return {
    address,
    namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
    bundle: process.env.MESH_WORKFLOW_BUNDLE,
  };
}

export interface TestWorker {
  client: Client;
  taskQueue: string;
  worker: Worker;
  /** Stops the worker (as a crash would not: gracefully) and closes connections. */
  stop(): Promise<void>;
}

/** A worker wired exactly like production (createRunbookWorker), on its own task queue. */
export async function startTestWorker(
  deps: ActivityDeps,
  taskQueue = `test-${randomBytes(4).toString('hex')}`,
): Promise<TestWorker> {
  return startWorker(taskQueue, (connection, namespace, workflowBundle) =>
    createRunbookWorker({ connection, namespace, deps, taskQueue, ...workflowBundle }),
  );
}

/**
 * A worker like startTestWorker's whose activities `wrap` may replace or wrap (e.g. to simulate a write
 * into a copy while it is verified); every activity it does not replace is production's.
 */
export async function startWrappedTestWorker(
  deps: ActivityDeps,
  wrap: (activities: Activities) => Partial<Activities>,
  taskQueue = `test-${randomBytes(4).toString('hex')}`,
): Promise<TestWorker> {
  const activities = createActivities(deps);
  return startWorker(taskQueue, (connection, namespace, workflowBundle) =>
    Worker.create({
      connection,
      namespace,
      taskQueue,
      activities: { ...activities, ...wrap(activities) },
      ...(workflowBundle.workflowBundle ? workflowBundle : workflowsFromSource()),
    }),
  );
}

async function startWorker(
  taskQueue: string,
  create: (
    connection: NativeConnection,
    namespace: string,
    workflowBundle: { workflowBundle?: { codePath: string } },
  ) => Promise<Worker>,
): Promise<TestWorker> {
  const target = harnessTarget();
  quietRuntime();
  const native = await NativeConnection.connect({ address: target.address });
  const worker = await create(
    native,
    target.namespace,
    target.bundle ? { workflowBundle: { codePath: target.bundle } } : {},
  );
  const running = worker.run();
  const connection = await Connection.connect({ address: target.address });
  const client = new Client({ connection, namespace: target.namespace });
  return {
    client,
    taskQueue,
    worker,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await native.close();
      await connection.close();
    },
  };
}

let runtimeInstalled = false;

/** Worker lifecycle chatter hides test output; warnings and errors still show. */
function quietRuntime(): void {
  if (!runtimeInstalled) installRuntime({ logger: new DefaultLogger('WARN') });
}

/** Installs the Runtime (e.g. with a logger the test reads) instead of the quiet one; before any worker. */
export function installRuntime(options: RuntimeOptions): void {
  Runtime.install(options);
  runtimeInstalled = true;
}
