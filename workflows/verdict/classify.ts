import type { ContainerEvidence, Evidence } from './evidence';
import { inspectContainer, isHeldBack } from './containers';
import {
  driftClause,
  failedClause,
  heldClause,
  okClause,
  pendingClause,
  sentence,
  unreadableClause,
  unrecreatedClause,
} from './reasons';
import { account, readInputs } from './resources';
import { onlyModules } from './scope';
import { ACTIONS } from './types';
import type { Action, ContainerFinding, Verdict, VerdictDetails, VerdictKind } from './types';

interface Problem {
  kind: Exclude<VerdictKind, 'ok' | 'unreadable'>;
  clause: string;
  actions: Action[];
}

/**
 * The gate rule (docs/design.md §3): one pure function from evidence to a verdict. Inconclusive means pause:
 * only `ok` lets a runbook move on.
 *
 * Precedence, most severe first: unreadable (nothing else can be trusted), drift (the node did something
 * nobody explains), failed (something is broken), held (a deliberate refusal with a known remedy),
 * unrecreated-volume (running, but on the wrong host path), pending (health not settled yet), ok.
 * The verdict is the most severe problem; the reason names every problem found, and the actions are
 * those that address any of them, plus `abort`. A container a hold keeps from running is explained by
 * the hold, not counted as failed.
 */
export function classify(evidence: Evidence): Verdict {
  const { node, module } = evidence;
  const revision = evidence.revision ?? 1;
  const look = (c: ContainerEvidence) =>
    inspectContainer(c, {
      healthDeadlinePassed: evidence.healthDeadlinePassed,
      oldHostPaths: evidence.oldHostPaths ?? [],
      firstSeen: evidence.firstSeen,
      compareSpec: revision >= 2,
    });
  const inputs = readInputs(evidence);
  if (!inputs.ok) {
    // Without the node's documents no hold explains anything; revision 2 still shows each container's state.
    const findings = revision >= 2 ? evidence.containers.flatMap((c) => look(c) ?? []) : [];
    const failing = findings.filter((f) => f.failures.length > 0);
    const also =
      failing.length > 0
        ? [
            failedClause(
              node,
              { sent: 0, applied: 0, held: [], failed: [], missing: [], notSent: [] },
              failing,
              evidence.containers.length,
            ),
          ]
        : [];
    return {
      verdict: 'unreadable',
      reason: sentence([unreadableClause(node, inputs.problems), ...also]),
      actions: ['recheck', 'retry', 'abort'],
      details: { ...emptyDetails(), unreadable: inputs.problems, containers: findings },
    };
  }

  const judged = evidence.judgedModules;
  const scoped = judged ? onlyModules(inputs, judged) : undefined;
  const { receipt, report, nodeState } = scoped ?? inputs;
  const acc = account(receipt, report, nodeState);
  const heldBack: string[] = [];
  const findings: ContainerFinding[] = [];
  for (const c of evidence.containers) {
    const finding = look(c);
    if (finding === undefined) continue;
    if (isHeldBack(c, acc.held)) heldBack.push(c.name);
    else findings.push(finding);
  }
  const failing = findings.filter((f) => f.failures.length > 0);
  const unrecreated = findings.filter((f) => f.running && f.mounts.length > 0);
  // A container on the old mounts runs an older spec too: that is unrecreated-volume, with its own remedy.
  const stale = findings.filter((f) => f.staleSpec.length > 0 && !(f.running && f.mounts.length > 0));
  const starting = findings.filter((f) => f.starting);
  const expected = evidence.containers.length;
  const offerTake = acc.held.some((h) => h.module === module) && !nodeState.taken.includes(module);

  const problems: Problem[] = [];
  if (acc.missing.length > 0 || acc.notSent.length > 0 || stale.length > 0) {
    problems.push({
      kind: 'drift',
      clause: driftClause(node, acc, stale),
      actions: stale.length > 0 ? ['recreate', 'retry'] : ['retry'],
    });
  }
  if (acc.failed.length > 0 || failing.length > 0) {
    const restarted = failing.some((f) =>
      f.failures.some((why) => why.includes('since the runbook first saw it')),
    );
    problems.push({
      kind: 'failed',
      clause: failedClause(node, acc, failing, expected),
      actions: restarted ? ['retry', 'accept-restarts'] : ['retry'],
    });
  }
  if (acc.held.length > 0) {
    const clause = heldClause(node, module, acc, nodeState, heldBack);
    problems.push({ kind: 'held', clause, actions: offerTake ? ['take', 'retry'] : ['retry'] });
  }
  if (unrecreated.length > 0) {
    problems.push({
      kind: 'unrecreated-volume',
      clause: unrecreatedClause(unrecreated),
      actions: ['recreate'],
    });
  }
  if (starting.length > 0) {
    problems.push({ kind: 'pending', clause: pendingClause(starting), actions: ['recheck'] });
  }

  const details: VerdictDetails = {
    ...emptyDetails(),
    held: acc.held,
    heldBack,
    missing: acc.missing,
    notSent: acc.notSent,
    failedResources: acc.failed,
    containers: findings,
    ...(scoped ? { elsewhere: scoped.elsewhere } : {}),
  };
  const [worst] = problems;
  if (worst === undefined) {
    return {
      verdict: 'ok',
      reason: sentence([okClause(node, receipt.pushId, acc, expected)]),
      actions: [],
      details,
    };
  }
  return {
    verdict: worst.kind,
    reason: sentence(problems.map((p) => p.clause)),
    actions: ACTIONS.filter((a) => a === 'abort' || problems.some((p) => p.actions.includes(a))),
    details,
  };
}

function emptyDetails(): VerdictDetails {
  return {
    unreadable: [],
    held: [],
    heldBack: [],
    missing: [],
    notSent: [],
    failedResources: [],
    containers: [],
  };
}
