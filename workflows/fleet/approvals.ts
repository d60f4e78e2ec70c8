import { runbookWorkflowId, type FleetApproval, type RunbookStatus } from '../contracts';
import type { Decisions } from '../runbook/decisions';
import type { Progress } from '../runbook/progress';
import { abortedBy } from '../runbook/failures';
import { MOVE_WAVES_GATE, WAVES_GATE, type FleetApprovals } from './contracts';

/** The node approval a fleet's approval stands for, in either kind of fleet. */
export interface StandsFor {
  /** The fleet's own gate, asked once after the canary (canary-then-waves). */
  wavesGate: typeof WAVES_GATE | typeof MOVE_WAVES_GATE;
  /** The gate each node would ask at, and the action there that the fleet's approval stands for. */
  gate: 'approve-stop-predecessor' | 'approve-remove-old-data';
  action: 'approve' | 'remove';
  /** What a later node does on it, as the approval's reason says: `stop its predecessor`. */
  lets: string;
}

export const EDGE_FLIP_STANDS_FOR: StandsFor = {
  wavesGate: WAVES_GATE,
  gate: 'approve-stop-predecessor',
  action: 'approve',
  lets: 'stop its predecessor',
};

export const DATA_PATH_MOVE_STANDS_FOR: StandsFor = {
  wavesGate: MOVE_WAVES_GATE,
  gate: 'approve-remove-old-data',
  action: 'remove',
  lets: 'remove its old data (when nothing uses it and nothing was written to it since its copy)',
};

/** What the fleet knows when its canary has ended: its id, the canary, its final status if it completed. */
interface AfterCanary {
  standsFor: StandsFor;
  fleetId: string;
  module: string;
  canary: string;
  completed: RunbookStatus | undefined;
  /** The nodes the fleet starts after the canary, in order. */
  later: readonly string[];
}

/**
 * The approval the later nodes may stop their predecessor on, once the canary ended; undefined: each node
 * asks its own (each-node, or the canary did not complete). canary-then-waves asks it once, here.
 */
export async function approvalAfterCanary(
  approvals: FleetApprovals,
  { decisions, progress }: { decisions: Decisions; progress: Progress },
  after: AfterCanary,
): Promise<FleetApproval | undefined> {
  if (approvals === 'each-node' || after.completed === undefined || after.later.length === 0)
    return undefined;
  if (approvals === 'canary-only') return canaryApproval(after.canary, after.completed, after.standsFor);
  const decision = await decisions.await({
    gate: after.standsFor.wavesGate,
    verdict: 'approval',
    reason: `The canary ${after.canary} completed: ${after.completed.outcome ?? 'completed'}. Approve lets each later node ${after.standsFor.lets} without its own approval when every gate of that node is ok at its first look (a node whose gate is not ok waits, pauses the fleet and asks its own); abort starts no other node.`,
    actions: ['approve', 'abort'],
    facts: [
      `canary ${after.canary}: ${after.completed.outcome ?? 'completed'}`,
      ...approvalsOf(after.completed, after.standsFor).map((d) => `canary ${after.canary}: ${d}`),
      `later nodes (${after.later.length}): ${after.later.join(', ')}`,
      `module: ${after.module}`,
    ],
  });
  if (decision.action === 'abort') {
    progress.mark(after.standsFor.wavesGate, 'failed', `abort by ${decision.by}`);
    throw abortedBy(decision.by, after.standsFor.wavesGate);
  }
  progress.mark(
    after.standsFor.wavesGate,
    'done',
    `approved by ${decision.by}, evidence ${decision.evidence ?? 'none'}`,
  );
  return {
    runbook: after.fleetId,
    gate: after.standsFor.wavesGate,
    by: decision.by,
    at: decision.at,
    evidence: decision.evidence ?? 'none',
  };
}

/** canary-only: the canary's own approval (approve-stop-predecessor, or remove at approve-remove-old-data). */
function canaryApproval(
  canary: string,
  status: RunbookStatus,
  standsFor: StandsFor,
): FleetApproval | undefined {
  const approval = [...status.decisions]
    .reverse()
    .find((d) => d.gate === standsFor.gate && d.action === standsFor.action);
  if (!approval) return undefined;
  return {
    runbook: runbookWorkflowId(canary),
    gate: approval.gate,
    by: approval.by,
    at: approval.at,
    evidence: approval.evidence ?? 'none',
  };
}

function approvalsOf(status: RunbookStatus, standsFor: StandsFor): string[] {
  return status.decisions
    .filter((d) => d.gate === standsFor.gate)
    .map((d) => `${d.gate}: ${d.action} by ${d.by} at ${d.at}`);
}
