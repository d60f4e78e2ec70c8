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
 * The locks of every runbook on one task queue, kept by one workflow (`runbook-locks@<queue>`): a runbook
 * asks for all the node and module locks it needs in one request, and gets them all at once when none is
 * held, first come first served (a waiting request reserves its locks against later ones, so it is never
 * starved, and since nobody holds some while waiting for others, nobody deadlocks). Temporal's
 * one-workflow-per-id makes it atomic. It ends when nobody holds or wants a lock.
 */

export interface LockHolder {
  /** The runbook's workflow id and run. */
  workflowId: string;
  runId: string;
  /** What the holder does, for the others' waiting sentence: "data-path-move of forge on forge1". */
  what: string;
}

export interface LockRequest extends LockHolder {
  /** Held by this runbook alone. */
  locks: string[];
  /** Held together with other runbooks that only share them, never while one holds it alone. */
  shared?: string[];
}

export interface LockState {
  held: LockRequest[];
  queue: LockRequest[];
}

export const requestLocks = defineSignal<[LockRequest]>('requestLocks');
export const releaseLocks = defineSignal<[{ workflowId: string; runId: string }]>('releaseLocks');
/** Sent to a requester: it holds every lock it asked for. */
export const locksGranted = defineSignal<[]>('locksGranted');
/** Sent to a requester that must wait: who holds (or has reserved) a lock it needs. */
export const locksBusy = defineSignal<[{ heldBy: LockHolder }]>('locksBusy');
export const lockStateQuery = defineQuery<LockState>('lockState');

/**
 * Per task queue: the locks live where the runbooks that share them run, so a deployment whose workers are
 * gone (a demo, a test) never leaves a lock that runbooks elsewhere would wait on.
 */
export function lockKeeperId(taskQueue: string): string {
  return `runbook-locks@${taskQueue}`;
}

const runs = proxyActivities<Pick<Activities, 'workflowIsOpen'>>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

const same = (a: { workflowId: string; runId: string }) => (b: { workflowId: string; runId: string }) =>
  a.workflowId === b.workflowId && a.runId === b.runId;

/** While someone waits, how often the keeper checks that the holders in its way still run. */
const HOLDER_CHECK = '30 seconds';
const HISTORY_LIMIT = 2_000;

export async function runbookLocks(start: LockRequest | LockState): Promise<void> {
  const state: LockState = 'queue' in start ? start : { held: [], queue: [start] };
  const told = new Map<string, string>();
  setHandler(requestLocks, (request) => {
    if (state.held.some(same(request)) || state.queue.some(same(request))) return;
    state.queue.push(request);
  });
  setHandler(releaseLocks, (released) => {
    state.held = state.held.filter((h) => !same(h)(released));
    state.queue = state.queue.filter((q) => !same(q)(released));
  });
  setHandler(lockStateQuery, () => state);

  while (state.held.length > 0 || state.queue.length > 0) {
    await grantWhatIsFree(state, told);
    const before = { held: state.held.length, queue: state.queue.length };
    const moved = () => state.held.length !== before.held || state.queue.length !== before.queue;
    if (state.queue.length === 0) await condition(moved);
    else if (!(await condition(moved, HOLDER_CHECK))) await dropEndedHolders(state);
    if (workflowInfo().historyLength > HISTORY_LIMIT) await continueAsNew<typeof runbookLocks>(state);
  }
}

/**
 * Grants, in order, every request whose locks are free: one it holds alone must be neither held nor reserved,
 * one it shares must not be held or reserved by someone holding it alone.
 */
async function grantWhatIsFree(state: LockState, told: Map<string, string>): Promise<void> {
  const taken = new Map<string, Taken>();
  for (const h of state.held) claim(taken, h);
  for (const request of [...state.queue]) {
    const blocker = blockerOf(taken, request);
    const requester = getExternalWorkflowHandle(request.workflowId, request.runId);
    if (blocker) {
      claim(taken, request);
      const key = `${request.workflowId}/${request.runId}`;
      if (told.get(key) !== `${blocker.workflowId}/${blocker.runId}`) {
        told.set(key, `${blocker.workflowId}/${blocker.runId}`);
        const { workflowId, runId, what } = blocker;
        await requester.signal(locksBusy, { heldBy: { workflowId, runId, what } }).catch(() => undefined);
      }
      continue;
    }
    state.queue = state.queue.filter((q) => !same(q)(request));
    const granted = await requester
      .signal(locksGranted)
      .then(() => true)
      .catch(() => false); // it ended while it waited
    if (!granted) continue;
    state.held.push(request);
    claim(taken, request);
  }
}

interface Taken {
  by: LockHolder;
  alone: boolean;
}

function blockerOf(taken: Map<string, Taken>, request: LockRequest): LockHolder | undefined {
  const alone = request.locks.map((lock) => taken.get(lock)?.by);
  const shared = (request.shared ?? [])
    .map((lock) => taken.get(lock))
    .map((t) => (t?.alone ? t.by : undefined));
  return [...alone, ...shared].find((h) => h !== undefined);
}

/** Marks a holder's (or a waiting request's reserved) locks as taken, keeping whoever took each first. */
function claim(taken: Map<string, Taken>, request: LockRequest): void {
  for (const lock of request.locks)
    if (!taken.get(lock)?.alone) taken.set(lock, { by: request, alone: true });
  for (const lock of request.shared ?? [])
    if (!taken.has(lock)) taken.set(lock, { by: request, alone: false });
}

/** A holder terminated (never released) is noticed once somebody waits for what it holds. */
async function dropEndedHolders(state: LockState): Promise<void> {
  for (const holder of [...state.held]) {
    if (!(await runs.workflowIsOpen(holder))) state.held = state.held.filter((h) => !same(h)(holder));
  }
}
