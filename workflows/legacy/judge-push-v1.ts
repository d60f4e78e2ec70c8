/** Frozen with the revision-1 runbooks (workflows/legacy/): what they schedule must not change. */
import { sleep } from '@temporalio/workflow';
import type { Timings } from '../contracts';
import { classify, type ReceiptEvidence, type ReportEvidence, type Verdict } from '../verdict';
import { act } from '../runbook/activities';
import { gateFacts } from '../runbook/gate-facts';
import type { ContainerMemory } from '../runbook/memory';
import type { Look } from '../runbook/runbook';

export interface PushTarget {
  node: string;
  module: string;
  oldHostPaths?: string[];
}

/**
 * What the node did with this push and how its containers are, judged by the verdict function. While
 * health is still starting it looks again every `recheckEveryMs` until the health deadline; `settled`
 * judges containers that should be healthy already (starting counts as failing at once).
 */
export async function judgePush(
  target: PushTarget,
  receipt: ReceiptEvidence,
  timings: Timings,
  options: { settled?: boolean; memory?: ContainerMemory } = {},
): Promise<Look> {
  const { memory } = options;
  const deadline = new Date().getTime() + timings.healthDeadlineMs;
  for (;;) {
    const applied = receipt.readable
      ? await act.collectApplyEvidence({
          node: target.node,
          pushId: receipt.value.pushId,
          timeoutMs: timings.applyReportMs,
        })
      : { report: receipt, nodeState: receipt };
    const containers = await act.inspectModuleContainers({
      node: target.node,
      module: target.module,
      stabilityWindowMs: timings.stabilityWindowMs,
    });
    const verdict = classify({
      ...target,
      receipt,
      ...applied,
      containers,
      healthDeadlinePassed: options.settled === true || new Date().getTime() >= deadline,
      // A runbook with a memory of its containers judges by revision 2 of the gate rule.
      ...(memory ? { firstSeen: memory.firstSeenOn(target.node), revision: 2 } : {}),
    });
    memory?.remember(target.node, containers, new Date().toISOString());
    const note = applyNote(receipt, applied.report, verdict);
    if (verdict.verdict !== 'pending')
      return look(verdict, memory && receipt.readable ? `${note} (push ${receipt.value.pushId})` : note);
    await sleep(timings.recheckEveryMs, { summary: `health of ${target.module} still starting: look again` });
  }
}

function look(verdict: Verdict, note: string): Look {
  if (verdict.verdict === 'ok') return { ok: true, note };
  return {
    ok: false,
    note,
    verdict: verdict.verdict,
    reason: verdict.reason,
    actions: verdict.actions,
    facts: gateFacts(note, verdict),
  };
}

function applyNote(receipt: ReceiptEvidence, report: ReportEvidence, verdict: Verdict): string {
  if (!receipt.readable) return `${verdict.verdict}: push receipt unreadable`;
  const applied = report.readable ? `applied ${report.value.applied}` : 'apply report unreadable';
  const held = verdict.details.held.length;
  const troubled = verdict.details.containers.length;
  return `${verdict.verdict}: sent ${receipt.value.sent}, ${applied}, held ${held}, containers with problems ${troubled}`;
}
