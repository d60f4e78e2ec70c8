import type { PlanReport } from '../../workflows/plan-report';

/** The prediction as the Web UI's static details show it, below the plan: what was expected at the start. */
export function predictionAsMarkdown(plan: PlanReport): string {
  const outcome = {
    ok: 'every gate predicted ok',
    decision: 'a decision predicted',
    refused: 'a refusal at preflight predicted',
  }[plan.outcome];
  const list = (title: string, rows: string[]) =>
    rows.length === 0 ? [] : ['', `**${title}:**`, ...rows.map((row) => `- ${row}`)];
  return [
    `### Predicted at the start: ${outcome}`,
    ...list('refusals', plan.refusals),
    ...list(
      'decisions to expect',
      plan.decisions.map((d) => `${d.step}: ${d.sentence}`),
    ),
    ...list(
      'held at the push',
      plan.holds.map((h) => `${h.node} ${h.resource}: ${h.reason}`),
    ),
    ...list(
      'not recreated by the push',
      plan.unrecreated.map((c) => `${c.name} (${c.state}) on ${c.from}, the spec says ${c.to}`),
    ),
    ...list(
      'gates',
      plan.steps.filter((s) => s.kind === 'gate').map((s) => `${s.name}: ${s.predicted}`),
    ),
  ].join('\n');
}
