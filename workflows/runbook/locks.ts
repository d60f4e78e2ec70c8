import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  CancellationScope,
  ChildWorkflowCancellationType,
  condition,
  getExternalWorkflowHandle,
  log,
  deprecatePatch,
  ParentClosePolicy,
  patched,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { lockHoldQuery, type LockHold, type LockHolder, type LockRequest } from '../lock-hold';
import { lockKeeperId, locksBusy, locksGranted, releaseLocks, requestLocks, runbookLocks } from '../lock';
import { runbookQueue } from './queue';
import { MESH_REVISION } from '../search-attributes';
import { verify } from './activities';
import { LOCKS_ASKED_AGAIN, RUNBOOK_REVISION, TRUSTED_INPUT } from './revision';

/** The keeper says the revision that started it, as every run does (a start's attributes are not replayed). */
const REVISION_ATTRIBUTE = [{ key: MESH_REVISION, value: RUNBOOK_REVISION }];

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
   * Takes every lock, waiting as long as another runbook holds one; `onWait` says who it waits for. A waiter
   * asks again every `askAgainMs` (doubling, up to 30 times that): a keeper that was terminated or lost
   * meanwhile is started again, and learns from the runbooks who holds what; so does a holder whose release
   * finds no keeper.
   */
  async take(
    wanted: { alone: string[]; shared: string[] },
    what: string,
    onWait: (holder: LockHolder) => void,
    askAgainMs: number,
  ): Promise<void> {
    deprecatePatch(LOCKS_ASKED_AGAIN);
    const { workflowId, runId } = workflowInfo();
    this.asked = true;
    const locks = [...new Set(wanted.alone)].sort();
    const shared = [...new Set(wanted.shared)].filter((l) => !locks.includes(l)).sort();
    const me: LockRequest = { workflowId, runId, what, locks, shared };
    const keeper = lockKeeperId(runbookQueue());
    this.hold = { state: 'asking', keeper, request: me, since: new Date().toISOString() };
    await request(me, 'shielded');
    let shown: LockHolder | undefined;
    let every = askAgainMs;
    const verified = patched(TRUSTED_INPUT);
    for (;;) {
      while (!this.granted) {
        const moved = () => this.granted || this.busy !== shown;
        if (!(await condition(moved, every))) {
          await request(me, 'signal first');
          every = Math.min(every * 2, askAgainMs * MAX_BACKOFF);
          continue;
        }
        if (!this.granted && this.busy) onWait((shown = this.busy));
      }
      // Anyone may signal a grant: it counts once the keeper says it holds this run's request.
      if (!verified || (await verify.lockGrantOf({ keeper, workflowId, runId }))) return;
      log.warn('a lock grant the keeper does not confirm was ignored', { keeper });
      this.granted = false;
      this.hold = { ...this.hold, state: 'asking' };
    }
  }

  /** Lets every lock go, granted or still asked for; safe to call twice, free when none was asked. */
  async release(): Promise<void> {
    if (!this.asked) return;
    this.asked = false;
    this.granted = false;
    this.hold = { ...this.hold, state: 'released' };
    const { workflowId, runId } = workflowInfo();
    const released = await getExternalWorkflowHandle(lockKeeperId(runbookQueue()))
      .signal(releaseLocks, { workflowId, runId })
      .then(() => true)
      .catch(() => false);
    // A keeper never ends while a runbook holds or asks: gone, it was lost. Whoever waits is served now.
    if (!released) await startKeeperAfresh();
  }
}

/** Starts the queue's keeper with no request of its own: it asks the runbooks who holds and who waits. */
async function startKeeperAfresh(): Promise<void> {
  await startChild(runbookLocks, {
    workflowId: lockKeeperId(runbookQueue()),
    args: [{ held: [], queue: [], afresh: true }],
    parentClosePolicy: ParentClosePolicy.ABANDON,
    cancellationType: ChildWorkflowCancellationType.ABANDON,
    typedSearchAttributes: REVISION_ATTRIBUTE,
  }).catch(() => undefined); // started by another meanwhile; else the waiters asking again start it
}

/**
 * Starts the queue's lock keeper with this request, or, when it runs already, signals the request to it.
 * Asked again, it signals first: the keeper usually still runs, and knows the request already.
 * Every start is shielded from a cancellation (an abort while the runbook asks).
 */
async function request(me: LockRequest, how: 'signal first' | 'shielded'): Promise<void> {
  const keeper = lockKeeperId(runbookQueue());
  const signal = () =>
    getExternalWorkflowHandle(keeper)
      .signal(requestLocks, me)
      .then(() => true)
      .catch(() => false);
  if (how === 'signal first' && (await signal())) return;
  const start = () =>
    startChild(runbookLocks, {
      workflowId: keeper,
      args: [me],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      cancellationType: ChildWorkflowCancellationType.ABANDON,
      typedSearchAttributes: REVISION_ATTRIBUTE,
    });
  for (;;) {
    try {
      // Shielded: a cancellation while the child starts would leave the start unanswered.
      await CancellationScope.nonCancellable(start);
      return;
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
    if (await signal()) return; // else it ended between the two: start it again
  }
}
