import type { RunbookKind } from './contracts';
import { DATA_PATH_MOVE } from './data-path-move-plan';
import { EDGE_FLIP } from './edge-flip-plan';
import { renderPlan as render, type RunbookPlan } from './runbook/plan';

/** Every runbook's plan, by kind: the Web UI's static details, the CLI's help and the policy derive from them. */
export const PLANS = { 'edge-flip': EDGE_FLIP, 'data-path-move': DATA_PATH_MOVE } as const satisfies Record<
  RunbookKind,
  RunbookPlan
>;

/** The runbook's static details: its plan, gates and compensations, fixed at start. */
export function renderPlan(kind: RunbookKind): string {
  return render(PLANS[kind]);
}

/** Approvals before something no decision takes back: four eyes unless the worker's policy says otherwise. */
export const FOUR_EYES_GATES: readonly string[] = Object.values(PLANS).flatMap((plan) =>
  plan.steps.filter((step) => 'fourEyes' in step && step.fourEyes).map((step) => step.name),
);

/** Every name a decision can be made at: each step (a failed step waits too) of every plan. */
export const DECISION_POINTS: readonly string[] = [
  ...new Set(Object.values(PLANS).flatMap((plan) => plan.steps.map((step) => step.name))),
];
