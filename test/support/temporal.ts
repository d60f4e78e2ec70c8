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

/** A client of the harness's dev server and the connection it owns. */
export async function connectHarnessClient(): Promise<{ client: Client; connection: Connection }> {
  const target = harnessTarget();
  const connection = await Connection.connect({ address: target.address });
  return { client: new Client({ connection, namespace: target.namespace }), connection };
}

export interface TestWorker {
  /** Stops the worker gracefully (as a crash would not) and closes its connection; twice is fine. */
  stop(): Promise<void>;
}

/** Replaces or wraps some of the activities production builds from `deps`; the others stay production's. */
export type WrapActivities = (activities: Activities, deps: ActivityDeps) => Partial<Activities>;

/**
 * A worker wired exactly like production (createRunbookWorker) on `taskQueue`. With `wrap`, the activities
 * it returns replace or wrap production's (e.g. to simulate a write into a copy while it is verified).
 */
export async function startTestWorker(
  taskQueue: string,
  deps: ActivityDeps,
  wrap?: WrapActivities,
): Promise<TestWorker> {
  const target = harnessTarget();
  quietRuntime();
  const bundle = target.bundle ? { workflowBundle: { codePath: target.bundle } } : undefined;
  const connection = await NativeConnection.connect({ address: target.address });
  const options = { connection, namespace: target.namespace, taskQueue };
  const worker = await (wrap
    ? wrappedWorker(options, deps, wrap, bundle)
    : createRunbookWorker({ ...options, deps, ...bundle }));
  const running = worker.run();
  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= (async () => {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await running;
        await connection.close();
      })();
      return stopped;
    },
  };
}

function wrappedWorker(
  options: { connection: NativeConnection; namespace: string; taskQueue: string },
  deps: ActivityDeps,
  wrap: WrapActivities,
  bundle: { workflowBundle: { codePath: string } } | undefined,
): Promise<Worker> {
  const activities = createActivities(deps);
  return Worker.create({
    ...options,
    activities: { ...activities, ...wrap(activities, deps) },
    ...(bundle ?? workflowsFromSource()),
  });
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
