import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type RuntimeOptions } from '@temporalio/worker';
import { createActivities, type Activities, type ActivityDeps } from '../../activities';
import { createRunbookWorker, type NodeQueues } from '../../worker/create-worker';
import { SDK_NO_WORKFLOWS } from '../../worker/log-bridge';
import { testPolicy } from './test-policy';

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

export interface TestWorkerOptions {
  /** Replaces or wraps some activities, on the runbook queue and on every node queue alike. */
  wrap?: WrapActivities;
  /** The node queues it serves too: in a runbook world, every node of its local mesh. */
  nodeQueues?: NodeQueues;
  /** Only the node queues (a worker "on a node" beside the world's). */
  nodeQueuesOnly?: boolean;
  /** Its Temporal identity, as the history records who ran each activity. */
  identity?: string;
}

/**
 * A worker wired exactly like production (createRunbookWorker) on `taskQueue`. With `wrap`, the activities
 * it returns replace or wrap production's (e.g. to simulate a write into a copy while it is verified).
 */
export async function startTestWorker(
  taskQueue: string,
  deps: ActivityDeps,
  options: TestWorkerOptions = {},
): Promise<TestWorker> {
  const target = harnessTarget();
  quietRuntime();
  const { wrap, nodeQueues, nodeQueuesOnly, identity } = options;
  const connection = await NativeConnection.connect({ address: target.address });
  const worker = await createRunbookWorker({
    connection,
    namespace: target.namespace,
    taskQueue,
    deps: { ...deps, policy: testPolicy(deps.policy) },
    ...(target.bundle ? { workflowBundle: { codePath: target.bundle } } : {}),
    ...(wrap ? { activitiesFor: wrapped(wrap) } : {}),
    ...(nodeQueues ? { nodeQueues } : {}),
    ...(nodeQueuesOnly ? { nodeQueuesOnly } : {}),
    ...(identity ? { identity } : {}),
  }).catch(async (error: unknown) => {
    await connection.close();
    throw error;
  });
  const running = worker.run();
  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= (async () => {
        worker.shutdown();
        await running;
        await connection.close();
      })();
      return stopped;
    },
  };
}

function wrapped(wrap: WrapActivities): (deps: ActivityDeps) => Activities {
  return (deps) => {
    const activities = createActivities(deps);
    return { ...activities, ...wrap(activities, deps) };
  };
}

let runtimeInstalled = false;

/** Worker lifecycle chatter hides test output; warnings and errors still show (not a node worker's no-workflows). */
export function quietRuntime(): void {
  if (runtimeInstalled) return;
  const stderr = new DefaultLogger('WARN');
  installRuntime({
    logger: new DefaultLogger('WARN', (entry) => {
      if (entry.message !== SDK_NO_WORKFLOWS) stderr.log(entry.level, entry.message, entry.meta);
    }),
  });
}

/** Installs the Runtime (e.g. with a logger the test reads) instead of the quiet one; before any worker. */
export function installRuntime(options: RuntimeOptions): void {
  Runtime.install(options);
  runtimeInstalled = true;
}

/** A node worker's Temporal identity without the host it says it is on (`<identity> [<node> on engine …]`). */
export function workerProcessOf(identity: string | null | undefined): string {
  return (identity ?? '').replace(/ \[[a-z0-9-]+ on [^\]]+\]$/, '');
}
