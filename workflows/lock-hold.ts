import type { QueryDefinition } from '@temporalio/common';

/**
 * What the lock keeper (workflows/lock.ts) and the runbooks that ask it share, bundle-safe (no workflow SDK):
 * the activities that read a runbook's own word about its locks import it too.
 */

export interface RunRef {
  workflowId: string;
  runId: string;
}

export interface LockHolder extends RunRef {
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
  /** Releases heard of and not yet checked with the run that is said to release. */
  releases?: RunRef[];
  /** Started by a runbook whose release found no keeper: the runbooks are asked, as by a keeper started afresh. */
  afresh?: true;
}

/**
 * A runbook's own word about its locks: `asking` from its request until it is granted, `holding` until it
 * lets go, `released` after (a late grant changes nothing), `none` for a runbook that never asked.
 */
export type LockHoldState = 'none' | 'asking' | 'holding' | 'released';

export interface LockHold {
  state: LockHoldState;
  /** The keeper it asked (`runbook-locks@<queue>`). */
  keeper?: string;
  request?: LockRequest;
  /** When it first asked (workflow time): a keeper that finds several waiting grants the oldest first. */
  since?: string;
}

/** What the keeper holds and queues (workflows/lock.ts), as the workflow SDK's `defineQuery` writes it. */
export const lockStateQuery = { type: 'query', name: 'lockState' } as QueryDefinition<LockState>;

/** As the workflow SDK's `defineQuery` writes it; every runbook answers it (workflows/runbook/locks.ts). */
export const lockHoldQuery = { type: 'query', name: 'lockHold' } as QueryDefinition<LockHold>;

/** How a run stands with its locks, as the keeper checks it before it believes a release or an end. */
export type LockHoldCheck = LockHoldState | 'ended' | 'unknown';

/** A run found on the keeper's task queue that holds or asks, with its request, for a keeper starting afresh. */
export interface FoundHold {
  state: 'asking' | 'holding';
  request: LockRequest;
  since: string;
}

export const same = (a: RunRef) => (b: RunRef) => a.workflowId === b.workflowId && a.runId === b.runId;
