import type { RunbookClient } from '../client';
import { BRANCH_CHANGED_ATTEMPTS, isBranchChanged } from './branch-changed';

/**
 * Tells a follower the moment the runbook's history grows (a step scheduled or done, a wait begun, a
 * decision taken), so it looks again at once instead of at its next poll. One long poll of the server at a
 * time (GetWorkflowExecutionHistory with waitNewEvent: the server answers when events are appended, or
 * empty after its own timeout). It stops at `close`, when the run closed, or at the first error (the
 * follower's poll goes on regardless) but a page refused as on a changed branch (isBranchChanged), read
 * again from the start a few times. A run that continued as new is followed into the next.
 */
export class HistoryGrows {
  private grown = 0;
  private seen = 0;
  private wake: (() => void) | undefined;
  private readonly stop = new AbortController();

  constructor(
    private readonly rb: RunbookClient,
    private readonly workflowId: string,
  ) {
    void this.listen().catch(() => undefined);
  }

  /** Resolves once the history grew since the last call resolved (at once if it already did). */
  next(): Promise<void> {
    if (this.grown > this.seen) {
      this.seen = this.grown;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.wake = () => {
        this.seen = this.grown;
        resolve();
      };
    });
  }

  close(): void {
    this.stop.abort();
  }

  private async listen(): Promise<void> {
    const { connection, target } = this.rb;
    let nextPageToken: Uint8Array | undefined;
    let first = true;
    let refused = 0;
    while (!this.stop.signal.aborted) {
      const token = nextPageToken;
      const page = await this.polling((signal) =>
        connection.withAbortSignal(signal, () =>
          connection.workflowService.getWorkflowExecutionHistory({
            namespace: target.namespace,
            execution: { workflowId: this.workflowId },
            waitNewEvent: true,
            ...(token ? { nextPageToken: token } : {}),
          }),
        ),
      ).catch(async (error: unknown) => {
        // Read again from the start (a wake the follower does not need is harmless).
        if (!isBranchChanged(error) || ++refused >= BRANCH_CHANGED_ATTEMPTS) throw error;
        nextPageToken = undefined;
        await new Promise((resolve) => setTimeout(resolve, 200 * refused));
        return undefined;
      });
      if (!page) continue;
      refused = 0;
      // The first page is the history as it was when following began: not news.
      if ((page.history?.events?.length ?? 0) > 0 && !first) {
        this.grown += 1;
        this.wake?.();
        this.wake = undefined;
      }
      first = false;
      if (page.nextPageToken && page.nextPageToken.length > 0) nextPageToken = page.nextPageToken;
      else if (page.history?.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes)
        nextPageToken = undefined; // a fleet past its history bound: its next run is the latest
      else return;
    }
  }

  /**
   * One long poll under a signal of its own, aborted with `stop`: the SDK leaves a listener on the signal it
   * is given for every call, and a follower polls as often as the runbook moves (Node warned at the 11th).
   */
  private async polling<T>(poll: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const own = new AbortController();
    const abort = () => own.abort();
    this.stop.signal.addEventListener('abort', abort, { once: true });
    try {
      return await poll(own.signal);
    } finally {
      this.stop.signal.removeEventListener('abort', abort);
    }
  }
}
