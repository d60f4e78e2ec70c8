import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { STATE_DIR_ENV } from '../../../mesh/local';
import { PACKAGE_ROOT } from '../../../mesh/package-root';

export interface DemoDev {
  address: string;
  uiUrl: string;
  exited: Promise<void>;
  running(): boolean;
  /** Ctrl-C for `dev`: the worker drains, then the server stops. */
  stop(): Promise<void>;
}

const READY_MS = 120_000;

/**
 * The demo runs the embedded default as the operator would, `mesh runbook dev` in its own process, and is
 * itself only a client of it.
 */
export async function startDev(options: {
  stateDir: string;
  localState: string;
  port: number;
  uiPort: number;
  taskQueue: string;
  /** The command `dev` names as the one that brings its runbooks back when it stops. */
  resumeWith: string;
}): Promise<DemoDev> {
  const args = [join(PACKAGE_ROOT, 'bin', 'mesh.js'), 'runbook', 'dev', '--json'];
  args.push(
    '--state-dir',
    options.stateDir,
    '--port',
    String(options.port),
    '--ui-port',
    String(options.uiPort),
    '--resume-with',
    options.resumeWith,
  );
  const child = spawn(process.execPath, args, {
    env: {
      ...process.env,
      [STATE_DIR_ENV]: options.localState,
      MESH_TASK_QUEUE: options.taskQueue,
      MESH_LOG_LEVEL: process.env.MESH_LOG_LEVEL ?? 'WARN',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const forwardCtrlC = () => child.kill('SIGINT');
  process.on('SIGINT', forwardCtrlC);
  // SIGTERM would end the demo at once and leave its dev (worker and Temporal server) on their ports.
  const stopThenEnd = () => {
    process.off('SIGTERM', stopThenEnd);
    forwardCtrlC();
    void exited.then(() => process.kill(process.pid, 'SIGTERM'));
  };
  process.on('SIGTERM', stopThenEnd);
  const ready = await new Promise<{ address: string; uiUrl: string }>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`mesh runbook dev was not ready within ${READY_MS / 1000} s`)),
      READY_MS,
    );
    let json = '';
    createInterface({ input: child.stdout }).on('line', (line) => {
      json += line;
      try {
        const info = JSON.parse(json) as { address: string; uiUrl: string };
        clearTimeout(timer);
        resolve(info);
      } catch {
        // the JSON object spans several lines; keep reading
      }
    });
    void exited.then(() =>
      reject(new Error('mesh runbook dev stopped before it was ready; see its messages above')),
    );
  });
  return {
    ...ready,
    exited,
    running: () => child.exitCode === null && child.signalCode === null,
    async stop() {
      process.off('SIGINT', forwardCtrlC);
      process.off('SIGTERM', stopThenEnd);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      await exited;
    },
  };
}
