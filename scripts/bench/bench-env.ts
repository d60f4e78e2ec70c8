import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { removeNodeContainers } from '../../docker/cleanup';
import { BASE_IMAGE, DockerEngine } from '../../docker/engine';
import { LocalMesh } from '../../mesh/local';
import { findTemporalCli } from '../../worker/temporal-binary';
import { writeWorkflowBundle } from '../../worker/workflow-bundle';
import { childNamed } from './proc-cpu';
import type { Meters } from './resources';
import { BenchWorker } from './worker-process';
import { QUEUE_READ_ARGS, SQLITE_FILE_ARGS } from '../../worker/dev-server-tuning';
import { ephemeralDevServer } from '../../worker/ephemeral-dev-server';

const TEMPORAL_ON_STDERR = join(__dirname, 'temporal-on-stderr.sh');

/** The workflows bundled once, as the test harness does; the worker loads this file instead of bundling. */
async function bundleWorkflows(scratch: string): Promise<string> {
  const bundle = join(scratch, 'workflows.js');
  await writeWorkflowBundle(bundle);
  return bundle;
}

/**
 * Everything the contenders run on: a Temporal dev server of the bench's own (random ports, like
 * scripts/run-tests.ts), the workflows bundled once, one warm worker in a child process over a local mesh
 * in a scratch state dir, and the Docker engine. `close` removes every container and file it made. The
 * test harness's bundle (MESH_WORKFLOW_BUNDLE) is used when it is set, instead of bundling again.
 */
export class BenchEnv {
  readonly mesh: LocalMesh;
  readonly stateDir: string;
  private readonly nodes: string[] = [];

  private constructor(
    readonly engine: DockerEngine,
    readonly temporal: TestWorkflowEnvironment,
    readonly worker: BenchWorker,
    readonly taskQueue: string,
    readonly scratch: string,
    /** The dev server's process (the SDK starts it as a child of this one), when found. */
    private readonly serverPid: number | undefined,
    /** The workflow bundle the bench's workers load. */
    readonly bundle: string,
    /** The dev server's SQLite file, when it keeps one (`databaseFile`); else it is in memory. */
    readonly databaseFile: string | undefined,
  ) {
    this.stateDir = join(scratch, 'mesh');
    this.mesh = new LocalMesh({ stateDir: this.stateDir, engine: this.engine });
  }

  /**
   * `databaseFile`: the dev server keeps its database in a file in the scratch dir, so its growth is seen;
   * `serverArgs`: more for its command line (dynamic config).
   */
  static async start(
    log: (line: string) => void,
    options: { databaseFile?: boolean; serverArgs?: readonly string[] } = {},
  ): Promise<BenchEnv> {
    const temporalCli = findTemporalCli();
    if (!temporalCli) throw new Error('no temporal CLI on PATH (scripts/bootstrap.sh installs it)');
    process.env.MESH_BENCH_TEMPORAL_CLI = temporalCli;
    const engine = new DockerEngine();
    await engine.ping();
    if (!(await engine.inspectImage(BASE_IMAGE)))
      throw new Error(`${BASE_IMAGE} is missing (scripts/bootstrap.sh builds it)`);
    const scratch = await mkdtemp(join(tmpdir(), 'mesh-bench-'));
    const databaseFile = options.databaseFile ? join(scratch, 'temporal.db') : undefined;
    const temporal = await TestWorkflowEnvironment.createLocal({
      server: ephemeralDevServer({
        executable: { type: 'existing-path', path: TEMPORAL_ON_STDERR },
        // The file as `mesh runbook dev` keeps it (WAL, no sync per commit), not SQLite's default journal.
        extraArgs: [
          ...QUEUE_READ_ARGS,
          ...(databaseFile ? SQLITE_FILE_ARGS : []),
          ...(options.serverArgs ?? []),
        ],
        ...(databaseFile ? { dbFilename: databaseFile } : {}),
      }),
    }).catch(async (error: unknown) => {
      await rm(scratch, { recursive: true, force: true });
      throw error;
    });
    try {
      log(
        `Temporal dev server on ${temporal.address}${databaseFile ? `, its database in ${databaseFile}` : ''}`,
      );
      const bundle = process.env.MESH_WORKFLOW_BUNDLE ?? (await bundleWorkflows(scratch));
      const taskQueue = `bench-${randomBytes(4).toString('hex')}`;
      const worker = await BenchWorker.start({
        address: temporal.address,
        namespace: temporal.namespace ?? 'default',
        taskQueue,
        stateDir: join(scratch, 'mesh'),
        bundle,
      });
      log(`a worker in a child process polls ${taskQueue}`);
      const serverPid = childNamed(process.pid, 'temporal');
      if (serverPid === undefined) log('the dev server process was not found: its CPU time is left out');
      return new BenchEnv(engine, temporal, worker, taskQueue, scratch, serverPid, bundle, databaseFile);
    } catch (error) {
      await temporal.teardown();
      await rm(scratch, { recursive: true, force: true });
      throw error;
    }
  }

  /** The processes an executor run on the dev server is metered on: the bench's worker and the dev server. */
  meters(): Meters {
    return {
      workers: { worker: this.worker.pid },
      temporal: this.serverPid === undefined ? {} : { 'dev server': this.serverPid },
    };
  }

  /** The dev server's database file with its SQLite journal files, in bytes; undefined when in memory. */
  async databaseBytes(): Promise<number | undefined> {
    const file = this.databaseFile;
    if (file === undefined) return undefined;
    const sizes = await Promise.all(
      ['', '-wal', '-shm'].map((suffix) =>
        stat(`${file}${suffix}`).then(
          (s) => s.size,
          () => 0,
        ),
      ),
    );
    return sizes.reduce((a, b) => a + b, 0);
  }

  get client(): Client {
    return this.temporal.client;
  }

  get address(): string {
    return this.temporal.address;
  }

  /** A node name no earlier run used; its containers are removed by `removeNode` or at `close`. */
  newNode(kind: string): string {
    const node = `bench-${kind}-${randomBytes(3).toString('hex')}`;
    this.nodes.push(node);
    return node;
  }

  async removeNode(node: string): Promise<void> {
    await removeNodeContainers([node], this.engine);
  }

  /** A scratch directory of this bench's own. */
  async dir(prefix: string): Promise<string> {
    return mkdtemp(join(this.scratch, prefix));
  }

  /** Containers first: they run health checks every second and would load the machine if left behind. */
  async close(): Promise<void> {
    const problems: unknown[] = [];
    const attempt = (step: () => Promise<unknown>) => step().catch((error: unknown) => problems.push(error));
    await attempt(() => removeNodeContainers(this.nodes, this.engine));
    await attempt(() => this.worker.stop());
    await attempt(() => this.temporal.teardown());
    // A node agent may still be writing a report as the tree goes: try again rather than leave it behind.
    await attempt(() => rm(this.scratch, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }));
    if (problems.length > 0) throw problems[0];
  }
}
