import { SdkComponent } from '@temporalio/common';
import {
  DefaultLogger,
  type LogEntry,
  type Logger,
  type LogLevel,
  type RuntimeOptions,
} from '@temporalio/worker';
import type pino from 'pino';
import { SDK_ACTIVITY_STARTED } from './log-context';

const PINO_LEVEL = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/** The SDK's warning from every node worker, which polls activities only by design (worker/node-worker.ts). */
export const SDK_NO_WORKFLOWS = 'No workflows registered, not polling for workflow tasks';

/**
 * The Temporal SDK's logger over a pino root: worker, workflow and activity lines, and (with
 * runtimeLogging's forwarding) the Rust core's. Every line the SDK ties to a workflow carries
 * `runbookId`: a runbook's workflow id is its runbook id.
 */
export function temporalLogger(root: pino.Logger, level: LogLevel): Logger {
  return new DefaultLogger(level, (entry) => write(root, entry));
}

function write(root: pino.Logger, { level, message, meta = {}, timestampNanos }: LogEntry): void {
  // Logged before any interceptor has read the activity's headers; log-context.ts logs it again with them.
  if (message === SDK_ACTIVITY_STARTED && meta.sdkComponent === SdkComponent.worker) return;
  const runbookId: unknown = meta.runbookId ?? meta.workflowId;
  const time = new Date(Number(timestampNanos / 1_000_000n)).toISOString();
  const pinoLevel = message === SDK_NO_WORKFLOWS ? 'debug' : PINO_LEVEL[level];
  root[pinoLevel]({ time, ...(runbookId !== undefined ? { runbookId } : {}), ...meta }, message);
}

/** Runtime options that send the SDK's lines and the Rust core's own lines at `level` to `root`. */
export function runtimeLogging(
  root: pino.Logger,
  level: LogLevel,
): Required<Pick<RuntimeOptions, 'logger' | 'telemetryOptions'>> {
  return {
    logger: temporalLogger(root, level),
    telemetryOptions: { logging: { filter: { core: level, other: 'WARN' }, forward: {} } },
  };
}
