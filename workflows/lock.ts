import {
  condition,
  continueAsNew,
  defineSignal,
  deprecatePatch,
  getExternalWorkflowHandle,
  patched,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  lockStateQuery,
  same,
  type LockHolder,
  type LockRequest,
  type LockState,
  type RunRef,
} from './lock-hold';
import { KEEPER_ASKS_RUNS, TRUSTED_INPUT } from './runbook/revision';

export type { LockHolder, LockRequest, LockState } from './lock-hold';
export { lockStateQuery } from './lock-hold';

/**
 * The locks of every runbook on one task queue, kept by one workflow (`runbook-locks@<queue>`): a runbook
 * asks for all the node and module locks it needs in one request, and gets them all at once when none is
 * held, first come first served (a waiting request reserves its locks against later ones, so it is never
 * starved, and since nobody holds some while waiting for others, nobody deadlocks). Temporal's
 * one-workflow-per-id makes it atomic. It ends when nobody holds or wants a lock.
 *
 * Since KEEPER_ASKS_RUNS the runbooks, not the keeper, are the truth about who holds: a keeper started
 * afresh (the last one ended, or was terminated with holders and waiters) first asks every open runbook on
 * its queue what it holds and waits for, and a release counts only once the releasing run itself says it let
 * go or has ended; a signal from anyone else changes nothing.
 */

export const requestLocks = defineSignal<[LockRequest]>('requestLocks');
export const releaseLocks = defineSignal<[RunRef]>('releaseLocks');
/** Sent to a requester: it holds every lock it asked for. */
export const locksGranted = defineSignal<[]>('locksGranted');
/** Sent to a requester that must wait: who holds (or has reserved) a lock it needs. */
export const locksBusy = defineSignal<[{ heldBy: LockHolder }]>('locksBusy');

/**
 * Per task queue, not per namespace (docs/design.md §5, Locks): a queue is one deployment of mesh runbook
 * over one mesh. Module names are the mesh's own, so the same name on two deployments is two modules; the
 * keeper runs on the workers of its queue, which run one version of its code, and a deployment whose
 * workers are gone leaves no lock that runbooks elsewhere wait on. The node itself is namespace-wide already:
 * its runbook's workflow id.
 */
export function lockKeeperId(taskQueue: string): string {
  return `runbook-locks@${taskQueue}`;
}

/** What the runbooks themselves say; a worker that dies asking is noticed in 10 s. */
const asked = proxyActivities<Pick<Activities, 'lockHoldOf' | 'lockHoldsOn'>>({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/** While someone waits, how often the keeper checks that the holders in its way still run. */
const HOLDER_CHECK = '30 seconds';
const HISTORY_LIMIT = 2_000;

export async function runbookLocks(start: LockRequest | LockState): Promise<void> {
  const first = 'queue' in start ? undefined : start;
  const afresh = first !== undefined || ('afresh' in start && start.afresh === true);
  const state: LockState = first ? { held: [], queue: [first] } : { releases: [], ...(start as LockState) };
  delete state.afresh;
  // It believes the runbooks, not itself: a release counts once the run says it let go.
  deprecatePatch(KEEPER_ASKS_RUNS);
  // A grant is held before it is told, so a runbook that asks the keeper about it finds it (TRUSTED_INPUT).
  const holdsBeforeTelling = patched(TRUSTED_INPUT);
  const releases = (state.releases ??= []);
  const told = new Map<string, string>();
  setHandler(requestLocks, (request) => {
    if (state.held.some(same(request)) || state.queue.some(same(request))) return;
    state.queue.push(request);
  });
  setHandler(releaseLocks, (released) => {
    // Checked in the loop: a request being granted or adopted right now is in neither list yet.
    if (!releases.some(same(released))) releases.push({ ...released });
  });
  setHandler(lockStateQuery, () => state);

  if (afresh) await adoptWhatRunsHold(state, first);
  for (;;) {
    await checkReleases(state, releases);
    if (state.held.length === 0 && state.queue.length === 0 && releases.length === 0) return;
    await grantWhatIsFree(state, told, holdsBeforeTelling);
    const before = { held: state.held.length, queue: state.queue.length };
    const moved = () =>
      state.held.length !== before.held || state.queue.length !== before.queue || releases.length > 0;
    if (state.queue.length === 0) await condition(moved);
    else if (!(await condition(moved, HOLDER_CHECK))) await dropEndedHolders(state);
    if (workflowInfo().historyLength > HISTORY_LIMIT) await continueAsNew<typeof runbookLocks>(state);
  }
}

function drop(state: LockState, run: RunRef): void {
  state.held = state.held.filter((h) => !same(h)(run));
  state.queue = state.queue.filter((q) => !same(q)(run));
}

/**
 * A keeper started afresh knows nothing: an earlier one may have been terminated while runbooks held and
 * waited. Every open runbook on the queue says what it holds (held again here) and what it waits for (queued
 * oldest first, by when each first asked), before anything is granted to the request that started this keeper.
 */
async function adoptWhatRunsHold(state: LockState, first: LockRequest | undefined): Promise<void> {
  const { taskQueue, workflowId } = workflowInfo();
  const found = await asked.lockHoldsOn({ taskQueue, keeper: workflowId });
  state.held = found.filter((f) => f.state === 'holding').map((f) => f.request);
  const waiting = found.filter((f) => f.state === 'asking' && !state.held.some(same(f.request)));
  const firstFound = !first || waiting.some((f) => same(f.request)(first)) || state.held.some(same(first));
  state.queue = waiting
    .sort((a, b) => (a.since < b.since ? -1 : a.since > b.since ? 1 : 0))
    .map((f) => f.request)
    .concat(firstFound ? [] : [first]);
}

/**
 * A release counts once the run itself says it let go, or has ended; anyone else's changes nothing. One for a
 * run that neither holds nor waits needs no asking.
 */
async function checkReleases(state: LockState, releases: RunRef[]): Promise<void> {
  while (releases.length > 0) {
    const run = releases[0] as RunRef;
    const known = state.held.some(same(run)) || state.queue.some(same(run));
    const now = known ? await asked.lockHoldOf(run) : 'unknown';
    if (now === 'released' || now === 'none' || now === 'ended') drop(state, run);
    releases.shift();
  }
}

/**
 * Grants, in order, every request whose locks are free: one it holds alone must be neither held nor reserved,
 * one it shares must not be held or reserved by someone holding it alone.
 */
async function grantWhatIsFree(
  state: LockState,
  told: Map<string, string>,
  holdsBeforeTelling: boolean,
): Promise<void> {
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
    if (holdsBeforeTelling) state.held.push(request);
    const granted = await requester
      .signal(locksGranted)
      .then(() => true)
      .catch(() => false); // it ended while it waited
    if (!granted) {
      if (holdsBeforeTelling) drop(state, request);
      continue;
    }
    // A release that arrived meanwhile is checked with the run before the next grant: no phantom holder.
    if (!holdsBeforeTelling) state.held.push(request);
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

/**
 * A holder terminated (never released) is noticed once somebody waits for what it holds, and so is one that
 * still runs but says it let go (its release went to a keeper since gone).
 */
async function dropEndedHolders(state: LockState): Promise<void> {
  for (const holder of [...state.held]) {
    const now = await asked.lockHoldOf(holder);
    if (now === 'released' || now === 'none' || now === 'ended') drop(state, holder);
  }
}
