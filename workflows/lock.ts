import {
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  getExternalWorkflowHandle,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';

/**
 * One workflow per lock (`lock-module-forge`, `lock-node-forge2`): it grants the lock to one runbook at a
 * time, first come first served, and ends when nobody holds or wants it. Temporal's one-workflow-per-id
 * makes it atomic: two runbooks asking at once meet the same lock.
 */

export interface LockHolder {
  /** The runbook's workflow id and run. */
  workflowId: string;
  runId: string;
  /** What the holder does, for the others' waiting sentence: "data-path-move of forge on forge1". */
  what: string;
}

export interface LockState {
  holder?: LockHolder;
  queue: LockHolder[];
}

export const requestLock = defineSignal<[LockHolder]>('requestLock');
export const releaseLock = defineSignal<[{ workflowId: string; runId: string }]>('releaseLock');
/** Sent to a requester: it holds the lock now. */
export const lockGranted = defineSignal<[{ lock: string }]>('lockGranted');
/** Sent to a requester that must wait: who holds the lock. */
export const lockBusy = defineSignal<[{ lock: string; heldBy: LockHolder }]>('lockBusy');
export const lockStateQuery = defineQuery<LockState>('lockState');

/**
 * Locks are per task queue: the lock's workflow runs where the runbooks that share it run, so a deployment
 * whose workers are gone (a demo, a test) never leaves a lock that runbooks elsewhere would wait on.
 */
export function lockWorkflowId(lock: string, taskQueue: string): string {
  return `lock-${lock}@${taskQueue}`;
}

const runs = proxyActivities<Pick<Activities, 'workflowIsOpen'>>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '5 seconds', maximumInterval: '1 minute' },
});

const same = (a: { workflowId: string; runId: string }) => (b: { workflowId: string; runId: string }) =>
  a.workflowId === b.workflowId && a.runId === b.runId;

/**
 * While someone waits, how often the lock checks that its holder still runs (a terminated runbook never
 * releases). It also checks whenever a new request arrives; with nobody waiting it does not check at all.
 */
const HOLDER_CHECK = '30 seconds';
const HISTORY_LIMIT = 2_000;

export async function runbookLock(first: LockHolder | LockState): Promise<void> {
  const lock = workflowInfo()
    .workflowId.replace(/^lock-/, '')
    .replace(/@[^@]*$/, '');
  const state: LockState = 'queue' in first ? first : { queue: [first] };
  const tellBusy = async (requester: LockHolder) => {
    if (!state.holder) return;
    await getExternalWorkflowHandle(requester.workflowId, requester.runId)
      .signal(lockBusy, { lock, heldBy: state.holder })
      .catch(() => undefined);
  };
  setHandler(requestLock, (requester) => {
    if ((state.holder && same(state.holder)(requester)) || state.queue.some(same(requester))) return;
    state.queue.push(requester);
    void tellBusy(requester);
  });
  setHandler(releaseLock, (released) => {
    if (state.holder && same(state.holder)(released)) delete state.holder;
    state.queue = state.queue.filter((waiting) => !same(waiting)(released));
  });
  setHandler(lockStateQuery, () => state);

  while (state.holder || state.queue.length > 0) {
    if (!state.holder) {
      const next = state.queue.shift() as LockHolder;
      state.holder = next;
      const granted = await getExternalWorkflowHandle(next.workflowId, next.runId)
        .signal(lockGranted, { lock })
        .then(() => true)
        .catch(() => false);
      if (!granted) delete state.holder; // it ended while it waited
      for (const waiting of state.queue) await tellBusy(waiting);
      continue;
    }
    const holder = state.holder;
    const waiting = state.queue.length;
    const moved = () => state.holder !== holder || state.queue.length > waiting;
    if (waiting > 0) await condition(moved, HOLDER_CHECK);
    else await condition(moved);
    if (state.holder === holder && state.queue.length > 0 && !(await runs.workflowIsOpen(holder)))
      delete state.holder;
    if (workflowInfo().historyLength > HISTORY_LIMIT) await continueAsNew<typeof runbookLock>(state);
  }
}
