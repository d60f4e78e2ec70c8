import type { RunbookClient } from '../../cli/runbook/client';
import { TemporalReads } from '../../client/temporal-reads/reads';
import type { RunbookWorld } from './runbook-world';
import { connectHarnessClient, harnessTarget } from './temporal';

/** A poll so long that a follower which only polls would never look twice within a test. */
export const AN_HOUR = 3_600_000;

/** The CLI's client over a connection of its own, as `mesh runbook watch` has. */
export async function cliClient(world: RunbookWorld): Promise<RunbookClient & AsyncDisposable> {
  const { client, connection } = await connectHarnessClient();
  const { address, namespace } = harnessTarget();
  const reads = new TemporalReads({ address }, namespace);
  return {
    reads,
    client,
    connection,
    target: { address, namespace },
    taskQueue: world.taskQueue,
    within: (ms, call) => connection.withDeadline(Date.now() + ms, call),
    hasWorker: async () => true,
    [Symbol.asyncDispose]: () => {
      reads.close();
      return connection.close();
    },
  };
}
