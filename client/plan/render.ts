import type { PlanReport } from '../../workflows/plan-report';

const OUTCOME: Record<PlanReport['outcome'], string> = {
  ok: 'every gate is predicted ok',
  decision: 'a decision is predicted',
  refused: 'preflight would refuse it',
};

/** One node's plan in a fleet's: its outcome, why preflight would refuse it, and the decisions to expect. */
export function nodeOutcomeLines(plan: PlanReport): string[] {
  const [headline = ''] = planAsLines(plan);
  return [
    headline,
    ...plan.refusals.map((refusal) => `  refused at preflight: ${refusal}`),
    ...plan.decisions.map((d) => `  ${d.step}: ${d.sentence}`),
  ];
}

/** The plan as a terminal shows it: the outcome, the decisions to expect, what it rests on, every step. */
export function planAsLines(plan: PlanReport): string[] {
  const where = plan.nodes.length > 1 ? plan.nodes.join(', ') : plan.node;
  const lines = [
    `plan: ${plan.kind} of ${plan.module} on ${where}: ${OUTCOME[plan.outcome]} (exit ${plan.exitCode})`,
  ];
  const section = (title: string, rows: string[], empty?: string) => {
    if (rows.length === 0 && empty === undefined) return;
    lines.push('', rows.length === 0 ? `${title}: ${empty}` : `${title}:`, ...rows.map((row) => `  ${row}`));
  };
  section('Refused at preflight', plan.refusals);
  section(
    'Decisions to expect',
    plan.decisions.map((d) => `${d.step}: ${d.sentence}`),
  );
  if (plan.outcome !== 'refused') {
    section(
      'Resources the node will hold',
      plan.holds.map((h) => `${h.node} ${h.resource}: ${h.reason}`),
      'none',
    );
    section(
      'Containers the push will not recreate',
      plan.unrecreated.map(
        (c) => `${c.name} (${c.state}, policy ${c.upgradePolicy}) mounts ${c.from}, the spec says ${c.to}`,
      ),
      'none',
    );
  }
  if (plan.kind === 'data-path-move')
    section(
      `Containers using ${plan.pathUsers[0]?.path ?? 'the path'}`,
      plan.pathUsers.map(
        (u) =>
          `${u.node}: ${u.name} (${u.module ? `module ${u.module}` : 'no module'}, ${u.state}) mounts ${u.source}`,
      ),
      'none',
    );
  lines.push('', `${plan.module} is assigned to: ${plan.moduleNodes.join(', ') || 'no node yet'}`);
  const width = Math.max(...plan.steps.map((s) => s.name.length));
  lines.push(
    '',
    'Steps (predicted):',
    ...plan.steps.map((s, i) => {
      const number = String(i + 1).padStart(3);
      const kind = s.kind === 'action' ? '' : ` [${s.kind}]`;
      return `${number}. ${s.name.padEnd(width)}  ${s.predicted}${kind}: ${s.because}`;
    }),
  );
  section('Not checked', plan.notChecked);
  return lines;
}
