import { PLANS } from '../../workflows/plans';
import { decisionsAsText, planAsText, type RunbookPlan } from '../../workflows/runbook/plan';

/** `start <kind> --help`: the runbook's plan, from the same constant the runbook runs. */
export function planHelp(plan: RunbookPlan): string {
  return planAsText(plan);
}

/** `decide --help`: every gate and approval of every runbook, with the actions it offers. */
export function decisionsHelp(): string {
  return [
    'Where runbooks wait, and the actions each place offers (a failed step also offers retry | abort):',
    ...Object.values(PLANS).flatMap((plan) => [
      `  ${plan.kind}`,
      ...decisionsAsText(plan).map((l) => `    ${l}`),
    ]),
  ].join('\n');
}
