import type { ApplyReport, FailedResource, HeldResource, NodeState, PushReceipt } from '../../mesh/schemas';
import type { Evidence } from './evidence';
import type { UnreadableInput } from './types';

export type ReadInputs =
  | { ok: true; receipt: PushReceipt; report: ApplyReport; nodeState: NodeState }
  | { ok: false; problems: UnreadableInput[] };

/**
 * Unwraps the three documents. A document that does not parse, is about another node or another push
 * (a report of another push, a node state whose last apply, and so its holds, is not this push), or
 * counts that disagree with their own id lists are not evidence for this push: unreadable.
 */
export function readInputs(evidence: Evidence): ReadInputs {
  const { receipt, report, nodeState, node } = evidence;
  const problems: UnreadableInput[] = [];
  if (!receipt.readable) problems.push({ input: 'receipt', source: receipt.source, error: receipt.error });
  if (!report.readable) problems.push({ input: 'report', source: report.source, error: report.error });
  if (!nodeState.readable)
    problems.push({ input: 'nodeState', source: nodeState.source, error: nodeState.error });
  if (!receipt.readable || !report.readable || !nodeState.readable) return { ok: false, problems };

  const r = receipt.value;
  const a = report.value;
  const n = nodeState.value;
  const receiptSource = `push ${r.pushId}`;
  const reportSource = `node ${a.node}`;
  if (r.node !== node)
    problems.push({
      input: 'receipt',
      source: receiptSource,
      error: `it is for node ${r.node}, not ${node}`,
    });
  if (a.node !== node)
    problems.push({ input: 'report', source: reportSource, error: `it is for node ${a.node}, not ${node}` });
  if (n.node !== node) {
    problems.push({
      input: 'nodeState',
      source: `node ${n.node}`,
      error: `it is for node ${n.node}, not ${node}`,
    });
  }
  if (a.pushId !== r.pushId) {
    problems.push({
      input: 'report',
      source: reportSource,
      error: `it is for push ${a.pushId}, not ${r.pushId}`,
    });
  }
  const stateApply = n.lastApply?.pushId;
  if (stateApply !== r.pushId) {
    const error = `its holds are from ${stateApply === undefined ? 'no apply' : `push ${stateApply}`}, not ${r.pushId}`;
    problems.push({ input: 'nodeState', source: `node ${n.node}`, error });
  }
  const sentIds = new Set(r.resourceIds).size;
  if (r.sent !== sentIds || sentIds !== r.resourceIds.length) {
    const error = `it says sent ${r.sent} but lists ${r.resourceIds.length} ids, ${sentIds} distinct`;
    problems.push({ input: 'receipt', source: receiptSource, error });
  }
  const appliedIds = new Set(a.appliedIds).size;
  if (a.applied !== appliedIds || appliedIds !== a.appliedIds.length) {
    const error = `it says applied ${a.applied} but lists ${a.appliedIds.length} ids, ${appliedIds} distinct`;
    problems.push({ input: 'report', source: reportSource, error });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, receipt: r, report: a, nodeState: n };
}

export interface Accounting {
  sent: number;
  applied: number;
  held: HeldResource[];
  failed: FailedResource[];
  /** Sent, not applied, and neither held nor failed. */
  missing: string[];
  /** Applied but never sent. */
  notSent: string[];
}

/** Compares what the controller sent with what the node applied, held and failed. */
export function account(receipt: PushReceipt, report: ApplyReport, nodeState: NodeState): Accounting {
  const held = uniqueBy([...report.held, ...nodeState.holds], (h) => h.resource);
  const failed = uniqueBy(report.failed, (f) => f.resource);
  const applied = new Set(report.appliedIds);
  const sent = new Set(receipt.resourceIds);
  const explained = new Set([...held.map((h) => h.resource), ...failed.map((f) => f.resource)]);
  return {
    sent: receipt.sent,
    applied: report.applied,
    held,
    failed,
    missing: [...sent].filter((id) => !applied.has(id) && !explained.has(id)),
    notSent: [...applied].filter((id) => !sent.has(id)),
  };
}

function uniqueBy<T>(items: T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const k = key(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
