import { execFile, spawn, type ChildProcessByStdio } from 'node:child_process';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';

const MESH = join(__dirname, '..', '..', 'bin', 'mesh.js');
const run = promisify(execFile);

export interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The environment of a `mesh` subprocess configured by its config file alone: none of the harness's
 * TEMPORAL_* variables (they would override the file), plus what the test gives.
 */
export function configOnlyEnv(env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env };
}

/** `mesh ...` as a subprocess. */
export async function meshCli(env: Record<string, string>, ...args: string[]): Promise<Outcome> {
  try {
    const { stdout, stderr } = await run(process.execPath, [MESH, ...args], { env: configOnlyEnv(env) });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** `mesh runbook worker --json [args]` as a subprocess, every line it prints kept. */
export class MeshWorker {
  /** Everything it printed, stdout and stderr (its logs) interleaved. */
  output = '';
  private stdout = '';
  private readonly exited: Promise<number | null>;

  private constructor(private readonly child: ChildProcessByStdio<null, Readable, Readable>) {
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    child.stdout.on('data', (chunk: Buffer) => {
      this.stdout += chunk.toString();
      this.output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
  }

  static start(env: Record<string, string>, ...args: string[]): MeshWorker {
    const child = spawn(process.execPath, [MESH, 'runbook', 'worker', '--json', ...args], {
      env: configOnlyEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new MeshWorker(child);
  }

  /** The worker's `--json` ready line once it polls; rejects with its output if it exits first. */
  async ready(
    timeoutMs = 120_000,
  ): Promise<{ address: string; taskQueue: string; identity: string; nodes: string }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      // Results go to stdout, logs to stderr: the ready JSON is the worker's only stdout.
      const ready = /^\{\n[\s\S]*?\n\}$/m.exec(this.stdout);
      if (ready)
        return JSON.parse(ready[0]) as {
          address: string;
          taskQueue: string;
          identity: string;
          nodes: string;
        };
      if (this.child.exitCode !== null)
        throw new Error(`the worker exited (${this.child.exitCode}):\n${this.output}`);
      if (Date.now() > deadline)
        throw new Error(`the worker did not poll within ${timeoutMs} ms:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** Waits for the process to end by itself (e.g. after a refused connection); its exit code. */
  exit(): Promise<number | null> {
    return this.exited;
  }

  /** SIGTERM (the worker drains), SIGKILL after `graceMs`. */
  async stop(graceMs = 20_000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}
