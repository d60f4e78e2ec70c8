import { DefaultLogger, NativeConnection, Runtime, type LogLevel } from '@temporalio/worker';
import type { ActivityDeps } from '../activities';
import { createRunbookWorker } from './create-worker';

/** Signals that stop a long-running command gracefully; a second one is ignored while it drains. */
export const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];

/**
 * One AbortSignal for SIGINT/SIGTERM, installed before anything starts. The SDK's own signal handling is
 * switched off so the process decides the order: the worker drains first, then whatever it depends on.
 */
export function stopOnSignals(): { signal: AbortSignal; dispose(): void } {
  Runtime.install({ shutdownSignals: [], logger: new DefaultLogger(logLevel()) });
  const controller = new AbortController();
  const stop = (name: NodeJS.Signals) => {
    if (!controller.signal.aborted) process.stderr.write(`\n${name}: stopping…\n`);
    controller.abort();
  };
  STOP_SIGNALS.forEach((name) => process.on(name, stop));
  return {
    signal: controller.signal,
    dispose: () => STOP_SIGNALS.forEach((name) => process.off(name, stop)),
  };
}

const LOG_LEVELS: readonly LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];

/** MESH_LOG_LEVEL for the worker's own lines (TRACE…ERROR); INFO by default. */
function logLevel(): LogLevel {
  const wanted = (process.env.MESH_LOG_LEVEL ?? 'INFO').toUpperCase() as LogLevel;
  return LOG_LEVELS.includes(wanted) ? wanted : 'INFO';
}

export interface RunWorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  deps: ActivityDeps;
  /** Aborted on SIGINT/SIGTERM: the worker stops polling, finishes what it holds, then returns. */
  signal: AbortSignal;
  onReady?: (identity: string) => void;
}

/** Runs the production runbook worker until `signal` aborts, then shuts it down gracefully. */
export async function runWorker(options: RunWorkerOptions): Promise<void> {
  const connection = await NativeConnection.connect({ address: options.address }).catch(() => {
    throw new Error(
      `Cannot reach Temporal at ${options.address}; start one with \`mesh runbook dev\` or set TEMPORAL_ADDRESS.`,
    );
  });
  try {
    const worker = await createRunbookWorker({
      connection,
      namespace: options.namespace,
      deps: options.deps,
      taskQueue: options.taskQueue,
    });
    if (options.signal.aborted) return;
    const running = worker.run();
    const shutdown = () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
    };
    options.signal.addEventListener('abort', shutdown, { once: true });
    options.onReady?.(worker.options.identity);
    try {
      await running;
    } finally {
      options.signal.removeEventListener('abort', shutdown);
    }
  } finally {
    await connection.close();
  }
}
