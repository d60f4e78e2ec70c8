import { sleep } from '@temporalio/workflow';
import type { Timings } from '../contracts';
import { classify, type ReceiptEvidence, type ReportEvidence, type Verdict } from '../verdict';
import { act } from './activities';
import type { Decisions } from './decisions';
import { gateFacts } from './gate-facts';
import type { Progress } from './progress';
import { abortedBy, step } from './steps';

export interface GateTarget {
  node: string;
  module: string;
  oldHostPaths?: string[];
}

export interface Judgement {
  verdict: Verdict;
  /** One line of evidence for the step list: what was sent, applied and held. */
  note: string;
}

/** One look at what the node did with this push and at its containers, judged by the verdict function. */
export async function judgeApply(
  target: GateTarget,
  receipt: ReceiptEvidence,
  timings: Timings,
): Promise<Judgement> {
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
      healthDeadlinePassed: new Date().getTime() >= deadline,
    });
    if (verdict.verdict !== 'pending') return { verdict, note: applyNote(receipt, applied.report, verdict) };
    await sleep(timings.recheckEveryMs, { summary: `health of ${target.module} still starting: look again` });
  }
}

function applyNote(receipt: ReceiptEvidence, report: ReportEvidence, verdict: Verdict): string {
  if (!receipt.readable) return `${verdict.verdict}: push receipt unreadable`;
  const applied = report.readable ? `applied ${report.value.applied}` : 'apply report unreadable';
  const held = verdict.details.held.length;
  const troubled = verdict.details.containers.length;
  return `${verdict.verdict}: sent ${receipt.value.sent}, ${applied}, held ${held}, containers with problems ${troubled}`;
}

export interface ApplyGateHandlers {
  /** Actions this runbook can carry out at this gate, besides abort and recheck. */
  take?: () => Promise<ReceiptEvidence>;
  retry: () => Promise<ReceiptEvidence>;
  recreate?: () => Promise<void>;
}

/** Judges the push until ok; anything else waits for the operator's decision and acts on it. */
export async function applyGate(
  gate: string,
  target: GateTarget,
  first: ReceiptEvidence,
  timings: Timings,
  ctx: { progress: Progress; decisions: Decisions },
  handlers: ApplyGateHandlers,
): Promise<ReceiptEvidence> {
  let receipt = first;
  for (;;) {
    const { verdict, note } = await step(ctx.progress, ctx.decisions, gate, () =>
      judgeApply(target, receipt, timings),
    );
    ctx.progress.mark(gate, verdict.verdict === 'ok' ? 'done' : 'waiting', note);
    if (verdict.verdict === 'ok') return receipt;
    const offered = verdict.actions.filter(
      (action) =>
        action === 'abort' || action === 'recheck' || action === 'retry' || handlers[action] !== undefined,
    );
    const decision = await ctx.decisions.await({
      gate,
      verdict: verdict.verdict,
      reason: verdict.reason,
      actions: offered,
      facts: gateFacts(note, verdict),
    });
    if (decision.action === 'abort') throw abortedBy(decision.by, gate);
    if (decision.action === 'take' && handlers.take) receipt = await handlers.take();
    if (decision.action === 'retry') receipt = await handlers.retry();
    if (decision.action === 'recreate' && handlers.recreate) await handlers.recreate();
  }
}
