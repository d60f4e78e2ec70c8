import { hostname } from 'node:os';
import type { NativeConnection } from '@temporalio/worker';
import { Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type Activities, type ActivityDeps } from '../activities';
import { isNodeLocalActivity, TASK_QUEUE } from '../workflows/contracts';
import { watchLocalNodes } from './local-nodes';
import { keepAlive } from './keep-alive';
import { runbookLogContext } from './log-context';
import type { ActivitiesFor, NodeSite, NodeWorkerOptions } from './node-worker';
import { NodeWorkers } from './node-workers';
import { prebuiltWorkflowBundle } from './workflow-bundle';
import { workflowsFromSource } from './workflow-code';

export type { ActivitiesFor, NodeSite } from './node-worker';

/**
 * The node queues a process serves besides the runbook queue: the nodes listed (`--node`, each with its
 * host root), or every node of the local mesh in a state dir, as it appears (dev, demo, tests).
 */
export type NodeQueues = { nodes: NodeSite[] } | { localMesh: string };

type NodeWorkerBase = Omit<NodeWorkerOptions, 'site'>;

export interface RunbookWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  deps: ActivityDeps;
  taskQueue?: string;
  /** A pre-built workflow bundle; by default `npm run build`'s when fresh, else bundled from source at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  identity?: string;
  nodeQueues?: NodeQueues;
  /** Only the node queues: no workflows and no shared activities in this process. */
  nodeQueuesOnly?: boolean;
  /** Builds the activities from their deps; production's by default (a test wraps some). */
  activitiesFor?: ActivitiesFor;
}

/**
 * A runbook worker process's Temporal workers: the one on the runbook queue (workflows and every activity)
 * and one per node it serves (that node's data and Docker work). They run and stop together.
 */
export class RunbookWorker {
  private readonly nodeWorkers: NodeWorkers;
  private shared: Worker | undefined;
  private stopWatching: () => void = () => undefined;
  private failure: unknown;

  private constructor(
    readonly identity: string,
    nodeWorker: NodeWorkerBase,
  ) {
    this.nodeWorkers = new NodeWorkers(nodeWorker, (error) =>
      error === undefined ? this.shutdown() : this.fail(error),
    );
  }

  static async create(options: RunbookWorkerOptions): Promise<RunbookWorker> {
    const identity = options.identity ?? `${process.pid}@${hostname()}`;
    const taskQueue = options.taskQueue ?? TASK_QUEUE;
    const worker = new RunbookWorker(identity, {
      connection: options.connection,
      namespace: options.namespace,
      runbookQueue: taskQueue,
      deps: options.deps,
      identity,
      ...(options.activitiesFor ? { activitiesFor: options.activitiesFor } : {}),
    });
    // Node queues first: a node's work need not wait while the workflows are bundled.
    worker.serve(options.nodeQueues);
    if (options.nodeQueuesOnly) return worker;
    try {
      worker.shared = await sharedWorker(options, taskQueue, identity);
    } catch (error) {
      worker.shutdown();
      await worker.nodeWorkers.done().catch(() => undefined);
      throw error;
    }
    return worker;
  }

  /** Polls until `shutdown` (or a worker fails), then waits for every worker to finish what it holds. */
  async run(): Promise<void> {
    // A worker that stops by itself (a fatal error, the SDK's own signal handling) stops the others too.
    await Promise.all([
      this.shared?.run().then(
        () => this.shutdown(),
        (error: unknown) => this.fail(error),
      ),
      this.nodeWorkers.done().catch((error: unknown) => this.fail(error)),
    ]);
    if (this.failure !== undefined) throw this.failure;
  }

  /** Runs until `fn` settles, then shuts down and waits for the workers; `fn`'s result or failure. */
  async runUntil<T>(fn: () => Promise<T>): Promise<T> {
    const running = this.run();
    try {
      return await fn();
    } finally {
      this.shutdown();
      await running;
    }
  }

  /** Stops polling; each worker finishes the tasks it holds. Calling it again changes nothing. */
  shutdown(): void {
    this.stopWatching();
    if (this.shared?.getState() === 'RUNNING') this.shared.shutdown();
    this.nodeWorkers.shutdown();
  }

  private serve(queues: NodeQueues | undefined): void {
    if (!queues) return;
    if ('nodes' in queues) return queues.nodes.forEach((site) => this.nodeWorkers.add(site));
    // An unreadable local mesh state is worth a line, not the worker: the next change is read again.
    this.stopWatching = watchLocalNodes(
      queues.localMesh,
      (site) => this.nodeWorkers.add(site),
      (error) => Runtime.instance().logger.warn(`Cannot read the nodes of the local mesh: ${String(error)}`),
    );
  }

  private fail(error: unknown): void {
    this.failure ??= error;
    this.shutdown();
  }
}

async function sharedWorker(
  options: RunbookWorkerOptions,
  taskQueue: string,
  identity: string,
): Promise<Worker> {
  // A pre-built bundle holds its workflow interceptors already (they are bundled in).
  const bundle = options.workflowBundle ?? prebuiltWorkflowBundle();
  const { interceptors, ...code } = bundle
    ? { workflowBundle: bundle, interceptors: {} }
    : workflowsFromSource();
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue,
    activities: withoutNodeWork((options.activitiesFor ?? createActivities)(options.deps)),
    identity,
    // Progress heartbeats reach the server (CLI, Web UI) within seconds, not at 80% of the heartbeat timeout.
    maxHeartbeatThrottleInterval: '2 seconds',
    ...code,
    interceptors: {
      ...interceptors,
      activity: [runbookLogContext, keepAlive({ stalledAfterMs: options.deps.policy?.stalledAfterMs })],
    },
  });
}

/**
 * The shared queue's activities: everything but a node's disk and Docker work, which only a worker on the
 * node itself may do.
 */
export function withoutNodeWork(activities: Activities): Partial<Activities> {
  return Object.fromEntries(
    Object.entries(activities).filter(([name]) => !isNodeLocalActivity(name)),
  ) as Partial<Activities>;
}

/** The one way a runbook worker is built, in production and in tests. */
export function createRunbookWorker(options: RunbookWorkerOptions): Promise<RunbookWorker> {
  return RunbookWorker.create(options);
}
