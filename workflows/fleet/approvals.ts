import { runbookWorkflowId, type FleetApproval, type RunbookStatus } from '../contracts';
import type { Decisions } from '../runbook/decisions';
import type { Progress } from '../runbook/progress';
import { abortedBy } from '../runbook/failures';
import type { FleetApprovals, StandsFor } from './contracts';

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
    ...(decision.signature ? { signature: decision.signature } : {}),
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
    ...(approval.signature ? { signature: approval.signature } : {}),
  };
}

function approvalsOf(status: RunbookStatus, standsFor: StandsFor): string[] {
  return status.decisions
    .filter((d) => d.gate === standsFor.gate)
    .map((d) => `${d.gate}: ${d.action} by ${d.by} at ${d.at}`);
}
