import { WorkflowNotFoundError, type Client } from '@temporalio/client';

const RUNNING = 'RUNNING';

/**
 * Terminates whichever of these workflows still runs (a fleet that failed or was cancelled leaves some), so
 * nothing of the bench's keeps running on a server that outlives it (the lab's); returns how many it
 * terminated. Terminate, not cancel: the runbooks' nodes are simulated and gone with the fleet's worker.
 */
export async function terminateLeftovers(
  client: Client,
  workflowIds: string[],
  reason: string,
): Promise<number> {
  let terminated = 0;
  for (const id of workflowIds) {
    const handle = client.workflow.getHandle(id);
    const running = await handle.describe().then(
      (d) => d.status.name === RUNNING,
      (error: unknown) => {
        if (error instanceof WorkflowNotFoundError) return false;
        throw error;
      },
    );
    if (!running) continue;
    await handle.terminate(reason);
    terminated++;
  }
  return terminated;
}
