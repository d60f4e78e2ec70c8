import { KINDS, type KindRegistry, type RunbookKind } from './kinds';
import { renderPlan as render, type RunbookPlan } from './runbook/plan';

type Plans = { [D in (typeof KINDS)[number] as D['kind']]: D['plan'] };

/** Every runbook's plan, by kind: the Web UI's static details, the CLI's help and the policy derive from them. */
export const PLANS = Object.fromEntries(KINDS.map((d) => [d.kind, d.plan])) as Plans;

/** The runbook's static details: its plan, gates and compensations, fixed at start. */
export function renderPlan(kind: RunbookKind): string {
  return render(PLANS[kind]);
}

/** A kind's approvals before something no decision takes back: four eyes unless the policy says otherwise. */
export function fourEyesOf(plan: RunbookPlan): string[] {
  return plan.steps.filter((step) => step.fourEyes).map((step) => step.name);
}

/** Every kind's four-eyes approvals: the policy's default. */
export function fourEyesGates(registry: KindRegistry = KINDS): string[] {
  return registry.flatMap((d) => fourEyesOf(d.plan));
}

/** Every name a decision can be made at: each step (a failed step waits too) of every plan. */
export function decisionPoints(registry: KindRegistry = KINDS): string[] {
  return [...new Set(registry.flatMap((d) => d.plan.steps.map((step) => step.name)))];
}

export const FOUR_EYES_GATES: readonly string[] = fourEyesGates();
export const DECISION_POINTS: readonly string[] = decisionPoints();
