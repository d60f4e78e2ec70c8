import type { Timings } from '../contracts';
import { classify, type ReceiptEvidence } from '../verdict';
import { undoAct } from './activities';

/**
 * Whether the push that took `module` off the node did just that: the node's report accounts for every
 * resource (nothing held, failed or drifting) and none of the module's containers runs any more.
 */
export async function judgeRemoval(
  target: { node: string; module: string },
  receipt: ReceiptEvidence,
  timings: Timings,
): Promise<{ ok: true } | { ok: false; reason: string }> {
  const applied = receipt.readable
    ? await undoAct.collectApplyEvidence({
        node: target.node,
        pushId: receipt.value.pushId,
        timeoutMs: timings.applyReportMs,
      })
    : { report: receipt, nodeState: receipt };
  const verdict = classify({
    ...target,
    receipt,
    ...applied,
    containers: [],
    healthDeadlinePassed: true,
    revision: 2,
  });
  const left = await undoAct.runningModuleContainers(target);
  if (verdict.verdict === 'ok' && left.length === 0) return { ok: true };
  const still = left.length > 0 ? `; ${left.join(', ')} still run` : '';
  return {
    ok: false,
    reason: `${verdict.verdict === 'ok' ? `${target.module} is unassigned` : verdict.reason.replace(/\.$/, '')}${still}`,
  };
}
