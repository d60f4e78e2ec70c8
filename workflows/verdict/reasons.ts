import type { NodeState } from '../../mesh/schemas';
import type { Accounting } from './resources';
import type { ContainerFinding, MountMismatch, UnreadableInput } from './types';

/**
 * One clause per kind of problem. `sentence` joins them into the single sentence an operator reads:
 * the verdict's clause first, the other problems after it as "; also ...".
 */

export function sentence(clauses: string[]): string {
  return `${clauses.join('; also ')}.`;
}

const INPUT_LABEL: Record<UnreadableInput['input'], string> = {
  receipt: 'push receipt',
  report: 'apply report',
  nodeState: 'node state',
};

export function unreadableClause(node: string, problems: UnreadableInput[]): string {
  const parts = problems.map(
    (p) => `the ${INPUT_LABEL[p.input]} from ${p.source} is unreadable (${quote(p.error)})`,
  );
  return `the evidence for ${node} is inconclusive and is not treated as success: ${parts.join(', and ')}`;
}

export function driftClause(node: string, acc: Accounting, stale: ContainerFinding[] = []): string {
  const parts: string[] = [];
  const { missing, notSent } = acc;
  if (missing.length > 0) {
    const are = missing.length === 1 ? 'is' : 'are';
    parts.push(
      `${count(missing.length, 'missing resource')} ${are} explained by no hold or failure (${list(missing)})`,
    );
  }
  if (notSent.length > 0) {
    const were = notSent.length === 1 ? 'was' : 'were';
    parts.push(`${count(notSent.length, 'applied resource')} ${were} never sent (${list(notSent)})`);
  }
  const accounts =
    parts.length > 0
      ? `${node} applied ${acc.applied} of ${acc.sent} sent resources, and ${parts.join(' and ')}`
      : '';
  if (stale.length === 0) return accounts;
  const items = stale.map((f) => `${f.name} ${f.staleSpec.join(' and ')}`);
  const olds = `${containers(stale.map((f) => f.name))} ${stale.length === 1 ? 'was' : 'were'} left from an older spec: ${list(items)}`;
  return accounts ? `${accounts}, and ${olds}` : `on ${node} ${olds}`;
}

export function failedClause(
  node: string,
  acc: Accounting,
  failing: ContainerFinding[],
  expected: number,
): string {
  const parts: string[] = [];
  if (acc.failed.length > 0) {
    const items = acc.failed.map((f) => `${f.resource} ("${quote(f.error)}")`);
    parts.push(`${node} failed to apply ${count(acc.failed.length, 'resource')}: ${list(items, 3)}`);
  }
  if (failing.length > 0) {
    const verb = failing.length === 1 ? 'is' : 'are';
    const items = failing.map((f) => `${f.name} ${f.failures.join(' and ')}`);
    parts.push(
      `${failing.length} of ${count(expected, 'expected container')} ${verb} failing: ${list(items)}`,
    );
  }
  return parts.join(', and ');
}

export function heldClause(
  node: string,
  module: string,
  acc: Accounting,
  state: NodeState,
  heldBack: string[],
): string {
  const notTaken = (m: string) => state.assigned.includes(m) && !state.taken.includes(m);
  const counts = new Map<string, number>();
  for (const h of acc.held) counts.set(h.module, (counts.get(h.module) ?? 0) + 1);
  const total = count(acc.held.length, 'resource');
  const [only] = counts.keys();
  let head: string;
  if (counts.size === 1 && only !== undefined && notTaken(only)) {
    head = `${only} is assigned to ${node} but not taken: ${total} ${acc.held.length === 1 ? 'is' : 'are'} held and ${node}`;
  } else if (counts.size === 1) {
    head = `${node} holds ${total} of ${only}, and it`;
  } else {
    const groups = [...counts].map(
      ([m, n]) => `${n} of ${m}${notTaken(m) ? ' (assigned but not taken)' : ''}`,
    );
    head = `${node} holds ${total}: ${groups.join(', ')}, and it`;
  }
  const applied = ` applied ${acc.applied} of ${acc.sent} sent`;
  const back = heldBack.length > 0 ? `, holding back ${containers(heldBack)}` : '';
  // Quote one of the node's own reasons: the runbook module's first hold, else the first hold.
  const example = acc.held.find((h) => h.module === module) ?? acc.held[0];
  const says = example === undefined ? '' : ` (the node says: "${quote(example.reason)}")`;
  return `${head}${applied}${back}${says}`;
}

export function unrecreatedClause(findings: ContainerFinding[]): string {
  const n = findings.length;
  const items = findings.map((f) => `${f.name} ${f.mounts.map(mountPhrase).join(' and ')}`);
  const were = n === 1 ? 'was' : 'were';
  return `${n} running ${n === 1 ? 'container' : 'containers'} ${were} not recreated on the desired host paths: ${list(items)}`;
}

export function pendingClause(findings: ContainerFinding[]): string {
  const verb = findings.length === 1 ? 'is' : 'are';
  return `${containers(findings.map((f) => f.name))} ${verb} still starting before the health deadline, so the gate checks again`;
}

export function okClause(node: string, pushId: string, acc: Accounting, expected: number): string {
  const runs = expected === 1 ? 'runs' : 'run';
  const tail =
    expected === 0
      ? 'no containers are expected'
      : `${count(expected, 'expected container')} ${runs} healthy on the desired host paths`;
  return `${node} applied all ${acc.sent} resources of push ${pushId} and holds none, and ${tail}`;
}

function mountPhrase(m: MountMismatch): string {
  const old = m.oldPath ? ' (an old path)' : '';
  if (m.current === null) return `does not mount ${m.desired ?? ''} at ${m.destination}`;
  if (m.desired === null) return `mounts ${m.current}${old} at ${m.destination}, which the spec does not`;
  return `mounts ${m.current}${old} at ${m.destination} instead of ${m.desired}`;
}

function containers(names: string[]): string {
  return `${names.length === 1 ? 'container' : 'containers'} ${list(names)}`;
}

function count(n: number, noun: string): string {
  return `${n} ${n === 1 ? noun : `${noun}s`}`;
}

/** At most `max` items, then how many more (the details carry the full list). */
export function list(items: string[], max = 5): string {
  const shown = items.slice(0, max).join(', ');
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}

/** Foreign text (a node's reason, a parse error) as part of one sentence: one line, no sentence break. */
export function quote(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/([.!?])+ (?=\S)/g, '; ')
    .replace(/[\s.!?]+$/, '')
    .replace(/"/g, "'")
    .trim();
}
