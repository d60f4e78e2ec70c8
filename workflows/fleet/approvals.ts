import { runbookWorkflowId, type FleetApproval, type RunbookStatus } from '../contracts';
import type { Decisions } from '../runbook/decisions';
import type { Progress } from '../runbook/progress';
import { abortedBy } from '../runbook/failures';
import { WAVES_GATE, type FleetApprovals } from './contracts';

/** What the fleet knows when its canary has ended: its id, the canary, its final status if it completed. */
interface AfterCanary {
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
  if (approvals === 'canary-only') return canaryApproval(after.canary, after.completed);
  const decision = await decisions.await({
    gate: WAVES_GATE,
    verdict: 'approval',
    reason: `The canary ${after.canary} completed: ${after.completed.outcome ?? 'completed'}. Approve lets each later node stop its predecessor without its own approval when every gate of that node is ok at its first look (a node whose gate is not ok waits, pauses the fleet and asks its own); abort starts no other node.`,
    actions: ['approve', 'abort'],
    facts: [
      `canary ${after.canary}: ${after.completed.outcome ?? 'completed'}`,
      ...approvalsOf(after.completed).map((d) => `canary ${after.canary}: ${d}`),
      `later nodes (${after.later.length}): ${after.later.join(', ')}`,
      `module: ${after.module}`,
    ],
  });
  if (decision.action === 'abort') {
    progress.mark(WAVES_GATE, 'failed', `abort by ${decision.by}`);
    throw abortedBy(decision.by, WAVES_GATE);
  }
  progress.mark(WAVES_GATE, 'done', `approved by ${decision.by}, evidence ${decision.evidence ?? 'none'}`);
  return {
    runbook: after.fleetId,
    gate: WAVES_GATE,
    by: decision.by,
    at: decision.at,
    evidence: decision.evidence ?? 'none',
  };
}

/** canary-only: the canary's own approval at approve-stop-predecessor, as it recorded it. */
function canaryApproval(canary: string, status: RunbookStatus): FleetApproval | undefined {
  const approval = [...status.decisions]
    .reverse()
    .find((d) => d.gate === 'approve-stop-predecessor' && d.action === 'approve');
  if (!approval) return undefined;
  return {
    runbook: runbookWorkflowId(canary),
    gate: approval.gate,
    by: approval.by,
    at: approval.at,
    evidence: approval.evidence ?? 'none',
  };
}

function approvalsOf(status: RunbookStatus): string[] {
  return status.decisions
    .filter((d) => d.gate === 'approve-stop-predecessor')
    .map((d) => `${d.gate}: ${d.action} by ${d.by} at ${d.at}`);
}
