import { NativeConnection, Runtime } from '@temporalio/worker';
import type { ActivityDeps } from '../activities';
import { loadConfig } from '../config';
import { connectionFailure, connectionOptionsFor } from './connection';
import { createRunbookWorker, type NodeQueues } from './create-worker';
import { runtimeLogging } from './log-bridge';
import { logSettings, meshLogger } from './logging';

/** Signals that stop a long-running command gracefully; a second one is ignored while it drains. */
export const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];

/**
 * One AbortSignal for SIGINT/SIGTERM, installed before anything starts. The SDK's own signal handling is
 * switched off so the process decides the order: the worker drains first, then whatever it depends on.
 */
export function stopOnSignals(): { signal: AbortSignal; dispose(): void } {
  const logs = logSettings(loadConfig().log.level);
  Runtime.install({ shutdownSignals: [], ...runtimeLogging(meshLogger(logs), logs.level) });
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

export interface RunWorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  deps: ActivityDeps;
  /** The node queues served besides the runbook queue (see create-worker.ts). */
  nodeQueues?: NodeQueues;
  nodeQueuesOnly?: boolean;
  /** Aborted on SIGINT/SIGTERM: the worker stops polling, finishes what it holds, then returns. */
  signal: AbortSignal;
  onReady?: (identity: string) => void;
  /** Runs once Temporal answered, before the worker is built: a refusal here starts nothing. */
  beforePolling?: () => Promise<void>;
}

/** Runs the production runbook worker until `signal` aborts, then shuts it down gracefully. */
export async function runWorker(options: RunWorkerOptions): Promise<void> {
  const connectOptions = connectionOptionsFor(options.address);
  const connection = await NativeConnection.connect(connectOptions).catch(async (error: unknown) => {
    throw await connectionFailure(connectOptions, error);
  });
  try {
    await options.beforePolling?.();
    const worker = await createRunbookWorker({
      connection,
      namespace: options.namespace,
      deps: options.deps,
      taskQueue: options.taskQueue,
      ...(options.nodeQueues ? { nodeQueues: options.nodeQueues } : {}),
      ...(options.nodeQueuesOnly ? { nodeQueuesOnly: true } : {}),
    });
    const running = worker.run();
    const shutdown = () => worker.shutdown();
    options.signal.addEventListener('abort', shutdown, { once: true });
    // Stopped while the worker was being built: only run() and its shutdown release the connection.
    if (options.signal.aborted) shutdown();
    else options.onReady?.(worker.identity);
    try {
      await running;
    } finally {
      options.signal.removeEventListener('abort', shutdown);
    }
  } finally {
    await connection.close();
  }
}
