import { hostname } from 'node:os';
import type * as Sdk from '@temporalio/client';
import type { Client, Connection } from '@temporalio/client';
import { ConfigError } from '../../config';
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

export interface RunbookClient {
  client: Client;
  connection: Connection;
  target: TemporalTarget;
  taskQueue: string;
  /** Runs one call with a deadline, so a runbook whose worker is gone cannot hang the CLI. */
  within<T>(ms: number, call: () => Promise<T>): Promise<T>;
  /** Whether a worker polled this task queue recently (the server forgets pollers after a few minutes). */
  hasWorker(taskQueue: string): Promise<boolean>;
}

/**
 * Temporal's client SDK (gRPC and its protobuf root: about a third of a second to load), loaded once the
 * address is known to answer, so "nothing listens" is said before paying for it.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
const sdk = () => require('@temporalio/client') as typeof Sdk;

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
  const workerSeenAt = new Map<string, number>();
  const rb: RunbookClient = {
    client,
    connection,
    target,
    taskQueue: taskQueueFromEnv(),
    within,
    async hasWorker(taskQueue) {
      if (Date.now() - (workerSeenAt.get(taskQueue) ?? 0) < 5_000) return true;
      // The task queue type defaults to the workflow queue, which is what a runbook needs answered.
      const described = await within(5_000, () =>
        connection.workflowService.describeTaskQueue({
          namespace: target.namespace,
          taskQueue: { name: taskQueue },
        }),
      );
      const seen = (described.pollers ?? []).length > 0;
      if (seen) workerSeenAt.set(taskQueue, Date.now());
      return seen;
    },
  };
  try {
    return await run(rb);
  } finally {
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
    if (error instanceof sdk().WorkflowNotFoundError) throw unknownRunbook(id, target);
    throw error;
  }
}
