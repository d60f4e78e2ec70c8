import type { RunbookKind } from '../../workflows/contracts';
import {
  PLAN_REPORT_VERSION,
  PlanReport,
  type ExpectedDecision,
  type PathUserReport,
  type PlannedStepReport,
  type PredictedHold,
  type StepPrediction,
  type UnrecreatedContainer,
} from '../../workflows/plan-report';
import type { RunbookPlan } from '../../workflows/runbook/plan';
import { LOCKS, PREFLIGHT } from '../../workflows/runbook/step-declarations';

export interface Predicted {
  predicted: StepPrediction;
  because: string;
}

/** What a runbook's planner found; `predictions` by step name (a step left out after a refusal is not reached). */
export interface Findings {
  kind: RunbookKind;
  node: string;
  module: string;
  nodes: string[];
  moduleNodes: string[];
  refusals: string[];
  holds: PredictedHold[];
  unrecreated: UnrecreatedContainer[];
  pathUsers: PathUserReport[];
  predictions: Record<string, Predicted>;
  decisions: ExpectedDecision[];
  notChecked: string[];
}

const NOT_REACHED: Predicted = { predicted: 'not-reached', because: 'preflight refuses the runbook first' };

/** The report: the runbook's plan step by step with each prediction, and the outcome its exit code says. */
export function planReport(plan: RunbookPlan, found: Findings): PlanReport {
  const refused = found.refusals.length > 0;
  const predictions: Record<string, Predicted> = refused
    ? {
        [LOCKS]: { predicted: 'runs', because: `takes ${found.nodes.join(', ')} at start` },
        [PREFLIGHT]: { predicted: 'refused', because: found.refusals.join('; ') },
      }
    : found.predictions;
  const steps: PlannedStepReport[] = plan.steps.map((step) => ({
    name: step.name,
    kind: step.kind,
    does: step.does,
    when: step.when ?? null,
    ...(predictions[step.name] ??
      (refused
        ? NOT_REACHED
        : { predicted: 'runs' as const, because: 'nothing the plan reads bears on it' })),
  }));
  const outcome = refused ? 'refused' : found.decisions.length > 0 ? 'decision' : 'ok';
  const { predictions: _, ...rest } = found;
  return PlanReport.parse({
    version: PLAN_REPORT_VERSION,
    ...rest,
    outcome,
    exitCode: outcome === 'refused' ? 2 : outcome === 'decision' ? 3 : 0,
    steps,
    decisions: refused ? [] : found.decisions,
  });
}

/** A gate predicted ok, and on what. */
export const okBecause = (because: string): Predicted => ({ predicted: 'ok', because });
