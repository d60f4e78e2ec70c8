import type { LogLevel } from '@temporalio/common';
import pino from 'pino';
import { prettyStream } from './log-pretty';

export const LOG_LEVELS: readonly LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface LogSettings {
  level: LogLevel;
  format: LogFormat;
}

/**
 * `level` is the config's log.level (MESH_LOG_LEVEL over the config file's, see config/load.ts).
 * MESH_LOG_FORMAT is json or pretty; by default pretty when stderr is a terminal and json otherwise, so a
 * container or a service manager always gets JSON.
 */
export function logSettings(
  level: string,
  env: NodeJS.ProcessEnv = process.env,
  terminal = process.stderr.isTTY === true,
): LogSettings {
  const wanted = level.toUpperCase() as LogLevel;
  if (!LOG_LEVELS.includes(wanted))
    throw new Error(`The log level must be one of ${LOG_LEVELS.join(', ')}, not ${level}`);
  const format = (env.MESH_LOG_FORMAT || (terminal ? 'pretty' : 'json')).toLowerCase() as LogFormat;
  if (!LOG_FORMATS.includes(format))
    throw new Error(`MESH_LOG_FORMAT must be json or pretty, not ${env.MESH_LOG_FORMAT}`);
  return { level: wanted, format };
}

/** Keys whose values never reach a log line, wherever they sit one level deep. */
const REDACTED = ['password', 'apiKey', 'privateKey', 'authorization', 'token'].flatMap((key) => [
  key,
  `*.${key}`,
]);

/**
 * The worker's one pino root. It writes to stderr by default: stdout carries the CLI's results (e.g.
 * `mesh runbook worker --json`), which a script must be able to read without log lines in between.
 * A line's `time` is when it happened (ISO 8601): the Temporal bridge passes the SDK's own timestamp,
 * because the runtime buffers lines for up to 100 ms to sort them.
 */
export function meshLogger(
  settings: LogSettings,
  destination: NodeJS.WritableStream = process.stderr,
): pino.Logger {
  return pino(
    {
      name: 'mesh-worker',
      level: settings.level.toLowerCase(),
      timestamp: false,
      mixin: () => ({ time: new Date().toISOString() }),
      formatters: { level: (label) => ({ level: label }) },
      serializers: { error: pino.stdSerializers.err },
      redact: { paths: REDACTED, censor: '[redacted]' },
    },
    settings.format === 'pretty' ? prettyStream(destination) : destination,
  );
}
