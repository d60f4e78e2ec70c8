import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Client, Connection, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { hostRootFromMesh, type ActivityDeps } from '../../activities';
import { dockerResolver } from '../../docker/endpoints';
import { startRunbook, type RunbookWorkflow, type StartOptions } from '../../client/start-runbook';
import type { DockerEngine } from '../../docker/engine';
import type { LocalMesh } from '../../mesh/local';
import { runbookWorkflowId } from '../../workflows/contracts';
import { LocalWorld } from './local-world';
import {
  connectHarnessClient,
  startTestWorker,
  type TestWorker,
  type TestWorkerOptions,
  type WrapActivities,
} from './temporal';
import { WorkerProcess } from './worker-process';

export interface RunbookWorldOptions<M extends LocalMesh> {
  /** Builds the mesh over the world's state dir (a LocalMesh subclass that misbehaves on purpose). */
  mesh?: (stateDir: string) => M;
  /** Activity deps on top of the world's mesh and the local Docker engine (policy, notifier, dockerFor). */
  deps?: Partial<ActivityDeps>;
  /** Replaces or wraps some of production's activities; the others stay production's. */
  wrap?: WrapActivities;
  /**
   * `in-process` (the default): a worker in this process. `none`: no worker here, for a test that runs
   * its own (`spawnWorker`, the CLI's) or none at all.
   */
  worker?: 'in-process' | 'none';
  /**
   * `local-mesh` (the default): the world's worker also serves the node queue of every node of its local
   * mesh, as `mesh runbook dev` does. `none`: the runbook queue only, for a test that runs node workers itself.
   */
  nodeQueues?: 'local-mesh' | 'none';
}

/**
 * Everything a runbook test needs, on the harness's dev server and the real Docker engine: a local mesh in
 * a scratch dir, a task queue of its own with a worker polling it (and every node's queue), and a client. Disposing it (`await
 * using`) terminates the runbooks still open on its nodes, stops its workers, and removes its containers,
 * images and dirs, however the test ended.
 */
export class RunbookWorld<M extends LocalMesh = LocalMesh> implements AsyncDisposable {
  readonly taskQueue = `test-${randomBytes(4).toString('hex')}`;
  private readonly runbookNodes = new Set<string>();
  private readonly workers: TestWorker[] = [];

  private constructor(
    private readonly local: LocalWorld<M>,
    readonly client: Client,
    private readonly connection: Connection,
  ) {}

  static async open<M extends LocalMesh>(options: RunbookWorldOptions<M>): Promise<RunbookWorld<M>> {
    const local = await (options.mesh ? LocalWorld.create(options.mesh) : LocalWorld.create());
    const connected = await connectHarnessClient().catch(async (error: unknown) => {
      await local.cleanup();
      throw error;
    });
    const world = new RunbookWorld(local as LocalWorld<M>, connected.client, connected.connection);
    if (options.worker === 'none') return world;
    try {
      const deps = {
        mesh: local.mesh,
        dockerFor: dockerResolver({}),
        hostRootOf: hostRootFromMesh(local.mesh),
        stateDir: join(local.stateDir, 'runbook'),
        ...options.deps,
      };
      const nodeQueues = options.nodeQueues === 'none' ? undefined : { localMesh: local.stateDir };
      world.workers.push(
        await startTestWorker(world.taskQueue, deps, {
          ...(options.wrap ? { wrap: options.wrap } : {}),
          ...(nodeQueues ? { nodeQueues } : {}),
        }),
      );
    } catch (error) {
      await world[Symbol.asyncDispose]();
      throw error;
    }
    return world;
  }

  get mesh(): M {
    return this.local.mesh;
  }

  get engine(): DockerEngine {
    return this.local.engine;
  }

  get stateDir(): string {
    return this.local.stateDir;
  }

  /** A node name no other test uses; its containers go, and its runbook is terminated if still open. */
  nodeName(): string {
    const node = this.local.nodeName();
    this.runbookNodes.add(node);
    return node;
  }

  /** A runbook this world started under `runbook-<name>` besides its nodes' (a fleet's): terminated if open. */
  owns(name: string): void {
    this.runbookNodes.add(name);
  }

  /** Removes a node's containers once a test is done with it, so a long run does not pile them up. */
  retireNode(node: string): Promise<void> {
    return this.local.retireNode(node);
  }

  /** A `mesh-local/...` image tag of this world's own, removed with it. */
  imageName(module: string): string {
    return this.local.imageName(module);
  }

  /** Starts a runbook on this world's task queue as the CLI does (startRunbook). */
  start<W extends RunbookWorkflow>(
    workflow: W,
    input: Parameters<W>[0],
    options: Omit<StartOptions, 'taskQueue'> = {},
  ): Promise<WorkflowHandleWithFirstExecutionRunId<W>> {
    this.runbookNodes.add(input.node);
    return startRunbook(this.client, workflow, input, { ...options, taskQueue: this.taskQueue });
  }

  /**
   * Another worker in this process on this world's queue, with the world's mesh and the local Docker engine
   * unless `deps` says otherwise; stopped with the world.
   */
  async startWorker(options: TestWorkerOptions & { deps?: Partial<ActivityDeps> } = {}): Promise<TestWorker> {
    const { deps, ...workerOptions } = options;
    const worker = await startTestWorker(
      this.taskQueue,
      {
        mesh: this.mesh,
        dockerFor: dockerResolver({}),
        hostRootOf: hostRootFromMesh(this.mesh),
        ...deps,
      },
      workerOptions,
    );
    this.workers.push(worker);
    return worker;
  }

  /** A production-built worker in a child process on this world's queue and mesh, for a test to kill. */
  async spawnWorker(): Promise<WorkerProcess> {
    const worker = await WorkerProcess.start({ taskQueue: this.taskQueue, stateDir: this.stateDir });
    this.workers.push(worker);
    return worker;
  }

  /** Stops every worker now (the in-process one flushes its logs); the runbooks' records stay on the server. */
  async stopWorkers(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.stop()));
  }

  /** Terminates the runbooks still open on this world's nodes, so they stop touching Docker. */
  async terminateOpenRunbooks(): Promise<void> {
    for (const node of this.runbookNodes) {
      const handle = this.client.workflow.getHandle(runbookWorkflowId(node));
      const { status } = await handle.describe().catch(() => ({ status: { name: 'NOT_FOUND' } }));
      if (status.name === 'RUNNING') await handle.terminate('test cleanup').catch(() => undefined);
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await inOrder([
      () => this.terminateOpenRunbooks(),
      () => this.stopWorkers(),
      () => this.connection.close(),
      () => this.local.cleanup(),
    ]);
  }
}

/** Opens a world for one test: `await using world = await runbookWorld()`. */
export function runbookWorld(): Promise<RunbookWorld>;
export function runbookWorld<M extends LocalMesh = LocalMesh>(
  options: RunbookWorldOptions<M>,
): Promise<RunbookWorld<M>>;
export function runbookWorld(options: RunbookWorldOptions<LocalMesh> = {}): Promise<RunbookWorld> {
  return RunbookWorld.open(options);
}

/** Runs every step, even after one failed; then fails with the first failure. */
async function inOrder(steps: (() => Promise<unknown>)[]): Promise<void> {
  const failures: unknown[] = [];
  for (const step of steps) await step().catch((error: unknown) => failures.push(error));
  if (failures.length > 0) throw failures[0];
}
