import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  ChildWorkflowCancellationType,
  condition,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  patched,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { lockHoldQuery, type LockHold, type LockHolder, type LockRequest } from '../lock-hold';
import { lockKeeperId, locksBusy, locksGranted, releaseLocks, requestLocks, runbookLocks } from '../lock';
import { runbookQueue } from './queue';
import { LOCKS_ASKED_AGAIN } from './revision';

/** Asked again at most this many times the first interval apart, however long the wait. */
const MAX_BACKOFF = 30;

/**
 * The locks a runbook holds besides its node's workflow id: every node and module it touches, asked for in
 * one request and granted all at once; released when the runbook ends, however it ends. The runbook answers
 * `lockHold` with what it holds or waits for: the keeper believes a release only when the run says so, and a
 * keeper started afresh learns from it who holds and who waits.
 */
export class Locks {
  private granted = false;
  private asked = false;
  private busy: LockHolder | undefined;
  private hold: LockHold = { state: 'none' };

  constructor() {
    setHandler(locksGranted, () => {
      if (this.hold.state === 'released') return;
      this.granted = true;
      this.hold = { ...this.hold, state: 'holding' };
    });
    setHandler(locksBusy, ({ heldBy }) => void (this.busy = heldBy));
    setHandler(lockHoldQuery, () => this.hold);
  }

  /**
   * Takes every lock, waiting as long as another runbook holds one; `onWait` says who it waits for. Since
   * LOCKS_ASKED_AGAIN a waiter asks again every `askAgainMs` (doubling, up to 30 times that): a keeper that
   * was terminated or lost meanwhile is started again, and learns from the runbooks who holds what.
   */
  async take(
    wanted: { alone: string[]; shared: string[] },
    what: string,
    onWait: (holder: LockHolder) => void,
    askAgainMs: number,
  ): Promise<void> {
    const asksAgain = patched(LOCKS_ASKED_AGAIN);
    const { workflowId, runId } = workflowInfo();
    this.asked = true;
    const locks = [...new Set(wanted.alone)].sort();
    const shared = [...new Set(wanted.shared)].filter((l) => !locks.includes(l)).sort();
    const me: LockRequest = { workflowId, runId, what, locks, shared };
    const keeper = lockKeeperId(runbookQueue());
    this.hold = { state: 'asking', keeper, request: me, since: new Date().toISOString() };
    await request(me);
    let shown: LockHolder | undefined;
    let every = askAgainMs;
    while (!this.granted) {
      const moved = () => this.granted || this.busy !== shown;
      if (!asksAgain) await condition(moved);
      else if (!(await condition(moved, every))) {
        await request(me, 'signal first');
        every = Math.min(every * 2, askAgainMs * MAX_BACKOFF);
        continue;
      }
      if (!this.granted && this.busy) onWait((shown = this.busy));
    }
  }

  /** Lets every lock go, granted or still asked for; safe to call twice, free when none was asked. */
  async release(): Promise<void> {
    if (!this.asked) return;
    this.asked = false;
    this.granted = false;
    this.hold = { ...this.hold, state: 'released' };
    const { workflowId, runId } = workflowInfo();
    await getExternalWorkflowHandle(lockKeeperId(runbookQueue()))
      .signal(releaseLocks, { workflowId, runId })
      .catch(() => undefined); // the keeper ended: nothing to release
  }
}

/**
 * Starts the queue's lock keeper with this request, or, when it runs already, signals the request to it.
 * Asked again, it signals first: the keeper usually still runs, and knows the request already.
 */
async function request(me: LockRequest, again?: 'signal first'): Promise<void> {
  const keeper = lockKeeperId(runbookQueue());
  const signal = () =>
    getExternalWorkflowHandle(keeper)
      .signal(requestLocks, me)
      .then(() => true)
      .catch(() => false);
  if (again && (await signal())) return;
  for (;;) {
    try {
      await startChild(runbookLocks, {
        workflowId: keeper,
        args: [me],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        cancellationType: ChildWorkflowCancellationType.ABANDON,
      });
      return;
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
    if (await signal()) return; // else it ended between the two: start it again
  }
}
