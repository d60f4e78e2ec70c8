import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { TEST_WORKER_CONFIG } from '../../test/support/test-policy';

const MESH_BIN = join(__dirname, '..', '..', 'bin', 'mesh.js');

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The environment the CLI runs in: the suite's server, a task queue, a local mesh's state dir. */
export function cliEnv(taskQueue: string, localState: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    MESH_TASK_QUEUE: taskQueue,
    MESH_ADAPTER: 'local',
    MESH_LOCAL_STATE: localState,
    NO_COLOR: '1',
  };
  // The operator's own config stays out; the test workers' lets runbooks shorten the windows they do not measure.
  env.MESH_CONFIG = TEST_WORKER_CONFIG;
  return env;
}

/** Starts `mesh <args>` (the compiled CLI, bin/mesh.js) as an operator's terminal would. */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv): ChildProcess & { output: () => CliRun } {
  const child = spawn(process.execPath, [MESH_BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return Object.assign(child, {
    output: () => ({ code: child.exitCode, signal: child.signalCode, stdout, stderr }),
  });
}

/** Runs `mesh <args>` to its end (SIGKILL after `timeoutMs`). */
export async function runCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<CliRun> {
  const child = spawnCli(args, env);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await new Promise<void>((resolve) => child.once('close', () => resolve()));
  clearTimeout(timer);
  return child.output();
}
