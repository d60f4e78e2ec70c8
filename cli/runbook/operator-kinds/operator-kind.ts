import type { Command } from 'commander';
import type { z } from 'zod';
import type { PlanReader } from '../../../client/plan/reader';
import type { PlanReport } from '../../../workflows/plan-report';
import type { KindDescriptor } from '../../../workflows/runbook/kind';
import type { DemoStory } from '../demo/story';

/** Prints the kind's plan of an input (made by its planner, through the registry it was registered from). */
export type ShowPlan = (input: unknown, json: boolean) => Promise<void>;

/** What the runbook of a kind would do on the node as it is now; changes nothing. */
export type Planner<I = never> = (reader: PlanReader, input: I, asFleet: boolean) => Promise<PlanReport>;

/**
 * What a runbook kind is on the operator's side (Node only): its `start` and `plan` commands (their options
 * and how they become the input), its planner and its demo. The rest of the kind is its descriptor.
 */
export interface OperatorKind<D extends KindDescriptor = KindDescriptor> {
  readonly descriptor: D;
  /** `mesh runbook start <kind>`: its options, the input they make, the start; its help ends with the plan. */
  registerStart(start: Command): Command;
  /** `mesh runbook plan <kind>`: the options of its start, the input they make shown by `show`. */
  registerPlan(plan: Command, show: ShowPlan): void;
  /** Its planner, loaded when a plan is made (it reads the node through the activities). */
  planner(): Planner<z.output<D['input']>>;
  /** Its `mesh runbook demo <kind>` story, loaded when the demo runs; absent: no demo of its own. */
  demo?(): DemoStory;
}

/** The operator's side of a list of kinds: every kind's, in the registry's order. */
export type OperatorRegistry = readonly OperatorKind[];

export function defineOperatorKind<D extends KindDescriptor>(kind: OperatorKind<D>): OperatorKind<D> {
  return kind;
}
