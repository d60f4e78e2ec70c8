import {
  ChildWorkflowCancellationType,
  condition,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  lockBusy,
  lockGranted,
  lockWorkflowId,
  releaseLock,
  requestLock,
  runbookLock,
  type LockHolder,
} from '../lock';

/**
 * The locks a runbook holds besides its node's workflow id: every node and module it touches. Taken in one
 * global order (so two runbooks never wait for each other), released when the runbook ends, however it ends.
 */
export class Locks {
  private readonly granted = new Set<string>();
  private readonly busy = new Map<string, LockHolder>();
  private readonly asked: string[] = [];

  constructor() {
    setHandler(lockGranted, ({ lock }) => void this.granted.add(lock));
    setHandler(lockBusy, ({ lock, heldBy }) => void this.busy.set(lock, heldBy));
  }

  /** Who holds a lock this runbook waits for, if it waits. */
  waitingFor(): LockHolder | undefined {
    const lock = this.asked.find((name) => !this.granted.has(name));
    return lock === undefined ? undefined : this.busy.get(lock);
  }

  /** Takes every lock, waiting as long as another runbook holds one; `onWait` says who it waits for. */
  async take(locks: string[], what: string, onWait: (holder: LockHolder) => void): Promise<void> {
    const { workflowId, runId } = workflowInfo();
    const me: LockHolder = { workflowId, runId, what };
    for (const lock of [...new Set(locks)].sort()) {
      this.asked.push(lock);
      await request(lock, me);
      let shown: LockHolder | undefined;
      while (!this.granted.has(lock)) {
        await condition(() => this.granted.has(lock) || this.busy.get(lock) !== shown);
        const holder = this.busy.get(lock);
        if (!this.granted.has(lock) && holder && holder !== shown) onWait((shown = holder));
      }
    }
  }

  /** Lets every lock go, granted or still asked for; safe to call twice. */
  async release(): Promise<void> {
    const { workflowId, runId } = workflowInfo();
    for (const lock of this.asked.splice(0)) {
      this.granted.delete(lock);
      await getExternalWorkflowHandle(lockWorkflowId(lock, workflowInfo().taskQueue))
        .signal(releaseLock, { workflowId, runId })
        .catch(() => undefined); // the lock ended: nothing to release
    }
  }
}

/** Starts the lock's workflow with this request, or, when it runs already, signals the request to it. */
async function request(lock: string, me: LockHolder): Promise<void> {
  for (;;) {
    try {
      await startChild(runbookLock, {
        workflowId: lockWorkflowId(lock, workflowInfo().taskQueue),
        args: [me],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        cancellationType: ChildWorkflowCancellationType.ABANDON,
      });
      return;
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
    const sent = await getExternalWorkflowHandle(lockWorkflowId(lock, workflowInfo().taskQueue))
      .signal(requestLock, me)
      .then(() => true)
      .catch(() => false);
    if (sent) return; // else it ended between the two: start it again
  }
}
