import type { Timings } from '../contracts';
import {
  classify,
  type ReceiptEvidence,
  type ReportEvidence,
  type Verdict,
  type VerdictKind,
} from '../verdict';
import { act } from './activities';
import { gateFacts } from './gate-facts';
import type { ContainerMemory } from './memory';
import type { Look } from './runbook';

export interface PushTarget {
  node: string;
  module: string;
  oldHostPaths?: string[];
}

/** Verdicts that come from the node's documents alone: no container can change them by settling. */
const DOCUMENT_VERDICTS: readonly VerdictKind[] = ['held', 'drift', 'unreadable'];

/**
 * What the node did with this push and how its containers are, judged by the verdict function as soon as
 * the evidence is final: the report as soon as it is written, a hold or drift at once, containers once each
 * has been up for the stability window (counted from its own start) and no health check is still starting.
 * `settled` judges containers that should be healthy already (starting counts as failing at once).
 */
export async function judgePush(
  target: PushTarget,
  receipt: ReceiptEvidence,
  timings: Timings,
  options: {
    settled?: boolean;
    memory: ContainerMemory;
    /** Called once the node's report for this push is in, before the containers are looked at. */
    onReport?: () => void;
    /** Only these modules' resources are judged (an undo's push); see Evidence.judgedModules. */
    judgedModules?: string[];
  },
): Promise<Look> {
  const { memory } = options;
  const deadline = new Date().getTime() + (options.settled ? 0 : timings.healthDeadlineMs);
  const applied = receipt.readable
    ? await act.collectApplyEvidence({
        node: target.node,
        pushId: receipt.value.pushId,
        timeoutMs: timings.applyReportMs,
      })
    : { report: receipt, nodeState: receipt };
  options.onReport?.();
  const judge = (containers: Parameters<typeof classify>[0]['containers']) =>
    classify({
      ...target,
      receipt,
      ...applied,
      containers,
      healthDeadlinePassed: new Date().getTime() >= deadline,
      firstSeen: memory.firstSeenOn(target.node),
      revision: 2,
      ...(options.judgedModules ? { judgedModules: options.judgedModules } : {}),
    });
  let waitForStability = !DOCUMENT_VERDICTS.includes(judge([]).verdict);
  for (;;) {
    const containers = await act.observeModuleContainers({
      node: target.node,
      module: target.module,
      stabilityWindowMs: timings.stabilityWindowMs,
      healthDeadlineMs: Math.max(0, deadline - new Date().getTime()),
      waitForStability,
    });
    const verdict = judge(containers);
    memory.remember(target.node, containers, new Date().toISOString());
    if (verdict.verdict !== 'pending') {
      const note = applyNote(receipt, applied.report, verdict);
      return look(verdict, receipt.readable ? `${note} (push ${receipt.value.pushId})` : note);
    }
    waitForStability = true;
  }
}

function look(verdict: Verdict, note: string): Look {
  const elsewhere = verdict.details.elsewhere ?? [];
  if (verdict.verdict === 'ok') return { ok: true, note, ...(elsewhere.length > 0 ? { elsewhere } : {}) };
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
