import { WorkflowUpdateFailedError } from '@temporalio/client';

/**
 * The server's own refusal of an Update no worker answered in the workflow task it was handed to (a worker
 * restarting, a run evicted from its cache): the Update was never accepted, so nothing was decided and
 * sending it again is safe; its evidence hash still guards against a gate that moved meanwhile.
 */
const UNPROCESSED = /wasn't processed by worker/;

const ATTEMPTS = 3;

/** Sends an Update, again when the server refused it unprocessed, at most ATTEMPTS times. */
export async function sendUntilProcessed<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      const unprocessed =
        error instanceof WorkflowUpdateFailedError && UNPROCESSED.test(error.cause?.message ?? '');
      if (!unprocessed || attempt >= ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
    }
  }
}
