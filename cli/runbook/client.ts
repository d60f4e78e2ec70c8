import { hostname } from 'node:os';
import type * as Sdk from '@temporalio/client';
import type { Client, Connection } from '@temporalio/client';
import { ConfigError, type TemporalConnectionOptions } from '../../config';
import {
  connectionFailure,
  temporalConnection,
  unreachable,
  type TemporalConnection,
  type TemporalTarget,
} from '../../worker/connection';
import { effectiveConfig } from '../config-command';
import { UsageError } from '../errors';
import { taskQueueFromEnv } from './options';
import type { TemporalReads } from '../../client/temporal-reads/reads';
import type * as Reads from '../../client/temporal-reads/reads';
import type * as Grpc from '../../client/temporal-reads/grpc';

/** What the read-only verbs need: Temporal's reads, without the client SDK. */
export interface RunbookReader {
  reads: TemporalReads;
  target: TemporalTarget;
  taskQueue: string;
  /** Whether a worker polled this task queue recently (the server forgets pollers after a few minutes). */
  hasWorker(taskQueue: string): Promise<boolean>;
}

/** A reader that can also write: start, decide, clear, through Temporal's client SDK. */
export interface RunbookClient extends RunbookReader {
  client: Client;
  connection: Connection;
  /** Runs one call with a deadline, so a runbook whose worker is gone cannot hang the CLI. */
  within<T>(ms: number, call: () => Promise<T>): Promise<T>;
}

/**
 * Temporal's client SDK (gRPC and its protobuf root: about a third of a second to load), loaded once the
 * address is known to answer, so "nothing listens" is said before paying for it.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
const sdk = () => require('@temporalio/client') as typeof Sdk;
/* eslint-disable @typescript-eslint/no-require-imports -- likewise, after "nothing listens" is ruled out */
const readsModule = () => require('../../client/temporal-reads/reads') as typeof Reads;
const grpcModule = () => require('../../client/temporal-reads/grpc') as typeof Grpc;
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * Reads Temporal for one command (`status`, `list`) without loading its client SDK; the first read, the
 * pollers of the task queue, doubles as the connection check, so a wrong address or TLS setting is
 * diagnosed as `withClient` diagnoses it.
 */
export async function withReader<T>(run: (reader: RunbookReader) => Promise<T>): Promise<T> {
  const { options: connectOptions, ...target } = configuredConnection();
  const nobody = connectOptions.tls ? undefined : await unreachable(connectOptions);
  if (nobody) throw nobody;
  const reader = readerOf(connectOptions, target);
  try {
    await reader.hasWorker(reader.taskQueue).catch(async (error: unknown) => {
      const { GrpcCode, GrpcError } = grpcModule();
      // These say the connection failed, not the call: not gRPC there, nobody answering, or refused.
      const transport = [GrpcCode.UNKNOWN, GrpcCode.UNAVAILABLE, GrpcCode.UNAUTHENTICATED] as number[];
      if (error instanceof GrpcError && !transport.includes(error.code)) throw error;
      const failure = await connectionFailure(connectOptions, error);
      throw failure.misconfigured ? new UsageError(failure.sentence, failure.suggestion) : failure;
    });
    return await run(reader);
  } finally {
    reader.reads.close();
  }
}

function readerOf(connectOptions: TemporalConnectionOptions, target: TemporalTarget): RunbookReader {
  const reads = new (readsModule().TemporalReads)(connectOptions, target.namespace);
  const workerSeenAt = new Map<string, number>();
  return {
    reads,
    target,
    taskQueue: taskQueueFromEnv(),
    async hasWorker(taskQueue) {
      if (Date.now() - (workerSeenAt.get(taskQueue) ?? 0) < 5_000) return true;
      const seen = (await reads.pollers(taskQueue)) > 0;
      if (seen) workerSeenAt.set(taskQueue, Date.now());
      return seen;
    },
  };
}

/** Connects to Temporal for one command and closes the connection however the command ends. */
export async function withClient<T>(
  run: (rb: RunbookClient) => Promise<T>,
  options: { operator?: string } = {},
): Promise<T> {
  const { options: connectOptions, ...target } = configuredConnection();
  let connection: Connection;
  // A refused or unresolvable address is said at once, not after the SDK's connect timeout and retries.
  // Not with TLS: a bare TCP probe would show in the server's log as a failed handshake at every command.
  const nobody = connectOptions.tls ? undefined : await unreachable(connectOptions);
  if (nobody) throw nobody;
  const { Client, Connection } = sdk();
  try {
    connection = await Connection.connect({ ...connectOptions, connectTimeout: 5_000 });
  } catch (error) {
    const failure = await connectionFailure(connectOptions, error);
    // A config that cannot work is bad input (exit 2); a server that is down is a failure (exit 1).
    throw failure.misconfigured ? new UsageError(failure.sentence, failure.suggestion) : failure;
  }
  const identity = `${options.operator ?? 'mesh'}@${hostname()} (mesh cli)`;
  const client = new Client({ connection, namespace: target.namespace, identity });
  const within = <R>(ms: number, call: () => Promise<R>) => connection.withDeadline(Date.now() + ms, call);
  const rb: RunbookClient = { ...readerOf(connectOptions, target), client, connection, within };
  try {
    return await run(rb);
  } finally {
    rb.reads.close();
    await connection.close().catch(() => undefined);
  }
}

/** The config's Temporal connection, its PEM files read; what is wrong with it is the operator's to fix. */
function configuredConnection(): TemporalConnection {
  try {
    return temporalConnection(effectiveConfig());
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message, error.suggestion);
    throw error;
  }
}

/** A runbook id Temporal does not know is the operator's mistake: one sentence, exit 2. */
export function unknownRunbook(id: string, target: TemporalTarget): UsageError {
  return new UsageError(
    `There is no runbook ${id} on Temporal at ${target.address} (namespace ${target.namespace}).`,
    'See the runbooks with `mesh runbook list`; a runbook id is runbook-<node>.',
  );
}

/** Turns Temporal's not-found into the operator-facing sentence; everything else passes through. */
export async function orUnknown<T>(id: string, target: TemporalTarget, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    // By name: neither the reads nor the SDK (whose not-found this also is) is loaded to ask instanceof.
    if (['RunNotFound', 'WorkflowNotFoundError'].includes((error as Error).name))
      throw unknownRunbook(id, target);
    throw error;
  }
}
