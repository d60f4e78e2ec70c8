import { z } from 'zod';
import { HeldResource, Name } from '../mesh/schemas';
import { RUNBOOK_KINDS } from './contracts';

/**
 * What `mesh runbook plan` predicts before a runbook starts, as `--json` prints it (version 1). Bundle-safe
 * (zod only), so a runbook can carry it too. Fields are only ever added; a change of meaning is version 2.
 */
export const PLAN_REPORT_VERSION = 1;

/**
 * How a step is predicted to go: a gate as its verdict would be (`ok`, `held`, `drift`,
 * `unrecreated-volume`); an action `runs`, or is `skipped` (take when nothing is held) or `refused`
 * (preflight); an approval `asks`; anything after a refusal is `not-reached`.
 */
export const StepPrediction = z.enum([
  'ok',
  'held',
  'drift',
  'unrecreated-volume',
  'runs',
  'skipped',
  'asks',
  'refused',
  'not-reached',
]);
export type StepPrediction = z.infer<typeof StepPrediction>;

export const PlannedStepReport = z.strictObject({
  name: z.string(),
  kind: z.enum(['action', 'gate', 'approval']),
  does: z.string(),
  /** Runs only on some paths (e.g. `take` after the operator chose take); null on every path. */
  when: z.string().nullable(),
  predicted: StepPrediction,
  /** Why: what of the node's current state the prediction rests on. */
  because: z.string(),
});
export type PlannedStepReport = z.infer<typeof PlannedStepReport>;

/** A decision the operator should expect: where the runbook will wait, and what it will offer. */
export const ExpectedDecision = z.strictObject({
  step: z.string(),
  action: z.string(),
  sentence: z.string(),
});
export type ExpectedDecision = z.infer<typeof ExpectedDecision>;

/** A resource the node is predicted to hold at the push, with the node's own reason. */
export const PredictedHold = HeldResource.extend({ node: Name });
export type PredictedHold = z.infer<typeof PredictedHold>;

/** A container whose mounts the runbook changes but that mesh will leave on the old path. */
export const UnrecreatedContainer = z.strictObject({
  node: Name,
  module: Name,
  container: Name,
  /** Its Docker name and state now. */
  name: z.string(),
  state: z.string(),
  from: z.string(),
  to: z.string(),
  /** The module's upgrade policy now (the runbook freezes it to manual for the move). */
  upgradePolicy: z.string(),
});
export type UnrecreatedContainer = z.infer<typeof UnrecreatedContainer>;

/** A container on the node's engine with a bind mount at or under a path the runbook works on. */
export const PathUserReport = z.strictObject({
  node: Name,
  path: z.string(),
  name: z.string(),
  module: Name.nullable(),
  state: z.string(),
  source: z.string(),
});
export type PathUserReport = z.infer<typeof PathUserReport>;

/** `ok` (exit 0): every gate predicted ok; `decision` (exit 3): a gate will wait; `refused` (exit 2). */
export const PlanOutcome = z.enum(['ok', 'decision', 'refused']);
export type PlanOutcome = z.infer<typeof PlanOutcome>;

export const PlanReport = z.strictObject({
  version: z.literal(PLAN_REPORT_VERSION),
  kind: z.enum(RUNBOOK_KINDS),
  node: Name,
  module: Name,
  /** The nodes the runbook acts on (the module's nodes for a data-path move with --nodes). */
  nodes: z.array(Name),
  /** The nodes the module is assigned to now, sorted. */
  moduleNodes: z.array(Name),
  outcome: PlanOutcome,
  exitCode: z.union([z.literal(0), z.literal(2), z.literal(3)]),
  /** Why preflight would refuse the runbook, in the order it checks; empty when it would not. */
  refusals: z.array(z.string()),
  holds: z.array(PredictedHold),
  unrecreated: z.array(UnrecreatedContainer),
  pathUsers: z.array(PathUserReport),
  steps: z.array(PlannedStepReport),
  decisions: z.array(ExpectedDecision),
  /** What the plan could not look at (e.g. the node's disk from this host), so its predictions are partial. */
  notChecked: z.array(z.string()),
});
export type PlanReport = z.infer<typeof PlanReport>;

/** `mesh runbook plan edge-flip --nodes ...`: each node's plan, in the order the fleet would run them. */
export const FleetPlanReport = z.strictObject({
  version: z.literal(PLAN_REPORT_VERSION),
  kind: z.literal('edge-flip'),
  module: Name,
  /** The order as `start` says it: `canary a, then one at a time: b, c`. */
  fleet: z.string(),
  /** Its approvals, failure budget and bound as `start` says them (fleetRulesLine). */
  rules: z.string(),
  nodes: z.array(Name),
  /** The worst of the nodes': 1 when a node's plan could not be made, else 2, 3 or 0 as for one node. */
  exitCode: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]),
  plans: z.array(PlanReport),
  /** Nodes whose plan could not be made, and why. */
  unplanned: z.array(z.strictObject({ node: Name, problem: z.string() })),
});
export type FleetPlanReport = z.infer<typeof FleetPlanReport>;
