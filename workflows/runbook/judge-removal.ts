import { deprecatePatch } from '@temporalio/workflow';
import type { Timings } from '../contracts';
import { classify, type ReceiptEvidence } from '../verdict';
import { undoAct } from './activities';
import { UNDO_JUDGES_OWN_MODULE } from './revision';

/**
 * Whether the push that took `module` off the node did just that: the node's report accounts for every
 * resource of the modules the runbook changed (`changed`: the module, and e.g. the predecessor it stopped;
 * nothing held, failed or drifting) and none of the module's containers runs any more. Other modules'
 * holds and failures are not the runbook's: they are named in its note.
 */
export async function judgeRemoval(
  target: { node: string; module: string },
  receipt: ReceiptEvidence,
  timings: Timings,
  changed: string[] = [target.module],
): Promise<{ ok: true; note?: string } | { ok: false; reason: string }> {
  const applied = receipt.readable
    ? await undoAct.collectApplyEvidence({
        node: target.node,
        pushId: receipt.value.pushId,
        timeoutMs: timings.applyReportMs,
      })
    : { report: receipt, nodeState: receipt };
  deprecatePatch(UNDO_JUDGES_OWN_MODULE);
  const verdict = classify({
    ...target,
    receipt,
    ...applied,
    containers: [],
    healthDeadlinePassed: true,
    revision: 2,
    judgedModules: changed,
  });
  const left = await undoAct.runningModuleContainers(target);
  const elsewhere = verdict.details.elsewhere ?? [];
  if (verdict.verdict === 'ok' && left.length === 0)
    return elsewhere.length > 0
      ? { ok: true, note: `${target.module} is off; left alone, not this runbook's: ${elsewhere.join('; ')}` }
      : { ok: true };
  const still = left.length > 0 ? `; ${left.join(', ')} still run` : '';
  return {
    ok: false,
    reason: `${verdict.verdict === 'ok' ? `${target.module} is unassigned` : verdict.reason.replace(/\.$/, '')}${still}`,
  };
}
