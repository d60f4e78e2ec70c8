import type { QueryDefinition, SignalDefinition } from '@temporalio/common';
import { FAILURE } from './contracts';
import type { RunRef } from './lock-hold';

/**
 * A node's durable "in flight" mark (workflows/node-mark.ts), bundle-safe: the runbooks, the activities
 * and the CLI read the same names. The mark is an open workflow per node, so it outlives its runbook's
 * history (retention deletes closed runs only) and a runbook terminated from the Web UI.
 */

/** Namespace-wide, like the node's runbook id: one mark per node. */
export function nodeMarkId(node: string): string {
  return `runbook-mark-${node}`;
}

/** The mark workflow's type (its function's name; a unit test holds them equal). */
export const NODE_MARK_TYPE = 'nodeMark';

/** What `mesh runbook list` and the Web UI call a mark (MeshKind). */
export const NODE_MARK_KIND = 'node-mark';

/** The run that marked the node, and what it did, as the mark's input keeps it. */
export interface MarkedBy extends RunRef {
  /** Its workflow type: edgeFlip, dataPathMove. */
  type: string;
  /** "data-path-move of forge on forge1, forge2". */
  what: string;
  startedBy: string;
  /** When it marked the node (workflow time). */
  at: string;
}

/** How a run closed, as Temporal says: its close status and, for a failure, its type and message. */
export interface RunEnded {
  status: string;
  failureType?: string;
  outcome?: string;
}

export interface NodeMarkInput {
  node: string;
  by: MarkedBy;
  /** How its runbook ended, once the mark learned it did not end cleanly (kept past the run's retention). */
  left?: RunEnded;
}

export interface Clearance {
  by: string;
  reason: string;
  at: string;
}

export type MarkEnd = { how: 'unmarked'; ended: RunEnded } | ({ how: 'cleared' } & Clearance);

/** How a marking run stands: still running, closed (how), or unknown to Temporal (its history is gone). */
export type RunState = { state: 'running' } | ({ state: 'ended' } & RunEnded) | { state: 'gone' };

/**
 * Ended cleanly: completed, or rolled back, aborted or refused with every undo done. A rollback that
 * failed, a termination, a timeout or a failure without a runbook's type leaves the node as nobody knows.
 */
export function endedCleanly(ended: RunEnded): boolean {
  if (ended.status === 'COMPLETED' || ended.status === 'CANCELLED') return true;
  return ended.status === 'FAILED' && !!ended.failureType && ended.failureType !== FAILURE.rollbackFailed;
}

/** Sent by the marking runbook as it ends; the mark checks how the run really closed before it goes. */
export const runbookEndedSignal = { type: 'signal', name: 'runbookEnded' } as SignalDefinition<[RunRef]>;
/** Sent by a clearance (workflows/clear-node.ts): a person looked at the node. */
export const clearMarkSignal = { type: 'signal', name: 'clearMark' } as SignalDefinition<[Clearance]>;
export const markQuery = { type: 'query', name: 'mark' } as QueryDefinition<NodeMarkInput>;
