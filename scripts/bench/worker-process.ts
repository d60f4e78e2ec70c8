import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';

const WORKER_MAIN = join(__dirname, 'worker-main.ts');
const KEPT_OUTPUT = 20_000;
const SAMPLE_EVERY_MS = 250;

export interface BenchWorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  stateDir: string;
  bundle: string;
  /** The worker's entry point: worker-main.ts unless another worker is measured the same way. */
  main?: string;
  /** More environment for that entry point. */
  env?: Record<string, string>;
}

/**
 * The worker in a child process (worker-main.ts, or the entry point given). Its resident memory is read from /proc/<pid>/status
 * (VmRSS, what process.memoryUsage().rss reports inside it) every 250 ms; `resetPeak` marks where a
 * measured phase starts.
 */
export class BenchWorker {
  private output = '';
  private peak = 0;
  private readonly sampler: NodeJS.Timeout;
  private readonly exited: Promise<void>;

  private constructor(private readonly child: ChildProcessByStdio<Writable, Readable, Readable>) {
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    child.stdout.on('data', (chunk: Buffer) => this.keep(chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => this.keep(chunk.toString()));
    this.sampler = setInterval(() => this.sample(), SAMPLE_EVERY_MS);
    this.sampler.unref();
  }

  static async start(options: BenchWorkerOptions): Promise<BenchWorker> {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TEMPORAL_ADDRESS: options.address,
      TEMPORAL_NAMESPACE: options.namespace,
      MESH_TASK_QUEUE: options.taskQueue,
      MESH_ADAPTER: 'local',
      MESH_LOCAL_STATE: options.stateDir,
      MESH_WORKFLOW_BUNDLE: options.bundle,
      ...options.env,
    };
    // The operator's own config file must not change what the bench measures.
    delete env.MESH_CONFIG;
    const tsx = pathToFileURL(require.resolve('tsx')).href;
    const child = spawn(process.execPath, ['--import', tsx, options.main ?? WORKER_MAIN], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const worker = new BenchWorker(child);
    try {
      await worker.ready(120_000);
    } catch (error) {
      await worker.stop();
      throw error;
    }
    return worker;
  }

  /** The worker's process id (its CPU time is read from /proc). */
  get pid(): number {
    if (this.child.pid === undefined) throw new Error('the bench worker has no process');
    return this.child.pid;
  }

  /** The worker's resident memory now, in bytes. */
  rss(): number {
    return this.sample();
  }

  /** Starts a new peak: `peakRss()` reports the highest resident memory seen from here on. */
  resetPeak(): void {
    this.peak = this.sample();
  }

  peakRss(): number {
    return Math.max(this.peak, this.sample());
  }

  get log(): string {
    return this.output;
  }

  /** Closes its stdin (it drains and stops), then SIGKILL if it is still there after 15 s. */
  async stop(): Promise<void> {
    clearInterval(this.sampler);
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    await this.exited;
    clearTimeout(timer);
  }

  private sample(): number {
    let rss = 0;
    try {
      const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
      rss = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
    } catch {
      // The worker is gone: nothing to sample.
    }
    this.peak = Math.max(this.peak, rss);
    return rss;
  }

  private keep(text: string): void {
    this.output = (this.output + text).slice(-KEPT_OUTPUT);
  }

  private ready(timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        this.child.stdout.off('data', onData);
        this.child.off('exit', onExit);
      };
      const onData = () => {
        if (!/^\{"ready":.*\}$/m.test(this.output)) return;
        done();
        resolve();
      };
      const onExit = (code: number | null, signal: string | null) => {
        done();
        reject(new Error(`the bench worker exited (${signal ?? code}) before it polled:\n${this.output}`));
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`the bench worker did not poll within ${timeoutMs} ms:\n${this.output}`));
      }, timeoutMs);
      this.child.stdout.on('data', onData);
      this.child.once('exit', onExit);
    });
  }
}
