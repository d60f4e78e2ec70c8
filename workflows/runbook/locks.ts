import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  ChildWorkflowCancellationType,
  condition,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import {
  lockKeeperId,
  locksBusy,
  locksGranted,
  releaseLocks,
  requestLocks,
  runbookLocks,
  type LockHolder,
  type LockRequest,
} from '../lock';
import { runbookQueue } from './queue';

/**
 * The locks a runbook holds besides its node's workflow id: every node and module it touches, asked for in
 * one request and granted all at once; released when the runbook ends, however it ends.
 */
export class Locks {
  private granted = false;
  private asked = false;
  private busy: LockHolder | undefined;

  constructor() {
    setHandler(locksGranted, () => void (this.granted = true));
    setHandler(locksBusy, ({ heldBy }) => void (this.busy = heldBy));
  }

  /** Takes every lock, waiting as long as another runbook holds one; `onWait` says who it waits for. */
  async take(
    wanted: { alone: string[]; shared: string[] },
    what: string,
    onWait: (holder: LockHolder) => void,
  ): Promise<void> {
    const { workflowId, runId } = workflowInfo();
    this.asked = true;
    const locks = [...new Set(wanted.alone)].sort();
    const shared = [...new Set(wanted.shared)].filter((l) => !locks.includes(l)).sort();
    await request({ workflowId, runId, what, locks, shared });
    let shown: LockHolder | undefined;
    while (!this.granted) {
      await condition(() => this.granted || this.busy !== shown);
      if (!this.granted && this.busy) onWait((shown = this.busy));
    }
  }

  /** Lets every lock go, granted or still asked for; safe to call twice, free when none was asked. */
  async release(): Promise<void> {
    if (!this.asked) return;
    this.asked = false;
    this.granted = false;
    const { workflowId, runId } = workflowInfo();
    await getExternalWorkflowHandle(lockKeeperId(runbookQueue()))
      .signal(releaseLocks, { workflowId, runId })
      .catch(() => undefined); // the keeper ended: nothing to release
  }
}

/** Starts the queue's lock keeper with this request, or, when it runs already, signals the request to it. */
async function request(me: LockRequest): Promise<void> {
  const keeper = lockKeeperId(runbookQueue());
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
    const sent = await getExternalWorkflowHandle(keeper)
      .signal(requestLocks, me)
      .then(() => true)
      .catch(() => false);
    if (sent) return; // else it ended between the two: start it again
  }
}
