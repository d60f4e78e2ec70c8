import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { harnessTarget } from './temporal';
import { TEST_WORKER_CONFIG } from './test-policy';

const WORKER_MAIN = join(__dirname, 'worker-main.ts');
const KEPT_OUTPUT = 20_000;

export interface WorkerProcessOptions {
  taskQueue: string;
  /** The local mesh's state dir (MESH_LOCAL_STATE) the worker's activities use. */
  stateDir: string;
  readyTimeoutMs?: number;
}

/**
 * A runbook worker in a child process (worker-main.ts) on the harness's dev server, which a test can
 * kill as a crash would. The child holds a pipe to this process as its stdin and stops when it closes.
 */
export class WorkerProcess {
  /** The worker's Temporal identity (`pid@host`), as it shows in the history and in pending activities. */
  identity = '';
  private output = '';
  private readonly exited: Promise<void>;

  private constructor(private readonly child: ChildProcessByStdio<Writable, Readable, Readable>) {
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    child.on('error', (error) => this.keep(`spawn failed: ${error.message}\n`));
    child.stdout.on('data', (chunk: Buffer) => this.keep(chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => this.keep(chunk.toString()));
  }

  /** Starts a worker and waits until it polls the task queue. */
  static async start(options: WorkerProcessOptions): Promise<WorkerProcess> {
    const target = harnessTarget();
    const tsx = pathToFileURL(require.resolve('tsx')).href;
    const child = spawn(process.execPath, ['--import', tsx, WORKER_MAIN], {
      cwd: join(__dirname, '..', '..'),
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: target.address,
        TEMPORAL_NAMESPACE: target.namespace,
        MESH_TASK_QUEUE: options.taskQueue,
        MESH_ADAPTER: 'local',
        MESH_LOCAL_STATE: options.stateDir,
        MESH_STATE_DIR: options.stateDir,
        MESH_CONFIG: TEST_WORKER_CONFIG,
        ...(target.bundle ? { MESH_WORKFLOW_BUNDLE: target.bundle } : {}),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const worker = new WorkerProcess(child);
    try {
      worker.identity = await worker.ready(options.readyTimeoutMs ?? 60_000);
    } catch (error) {
      await worker.kill();
      throw error;
    }
    return worker;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The last 20 kB the worker printed, for a failing test's message. */
  get log(): string {
    return this.output;
  }

  /** SIGKILL, as a crash or an OOM kill would: no drain, no goodbye to the server. Waits for the exit. */
  async kill(): Promise<void> {
    if (this.running) this.child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM (the worker drains and stops), then SIGKILL if it is still there after `graceMs`. */
  async stop(graceMs = 15_000): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  private keep(text: string): void {
    this.output = (this.output + text).slice(-KEPT_OUTPUT);
  }

  private ready(timeoutMs: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        this.child.stdout.off('data', onData);
        this.child.off('exit', onExit);
      };
      const onData = () => {
        const line = /^\{"ready":.*\}$/m.exec(this.output);
        if (!line) return;
        done();
        resolve((JSON.parse(line[0]) as { ready: string }).ready);
      };
      const onExit = (code: number | null, signal: string | null) => {
        done();
        reject(new Error(`worker process exited (${signal ?? code}) before it polled:\n${this.output}`));
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`worker process did not poll within ${timeoutMs} ms:\n${this.output}`));
      }, timeoutMs);
      this.child.stdout.on('data', onData);
      this.child.once('exit', onExit);
    });
  }
}
