import type { z } from 'zod';
import type { RunbookPlan } from './plan';

/**
 * What a runbook kind is, as the workflows, the worker, the Web UI, the config and the lock keeper read it.
 * Bundle-safe: no Node APIs, no workflow SDK; what a kind adds on the operator's side (its CLI options,
 * planner, demo) is its part in cli/runbook/operator-kinds/, keyed by the same name.
 */
export interface KindDescriptor<
  K extends string = string,
  S extends z.ZodType = z.ZodType,
  P extends RunbookPlan = RunbookPlan,
  W extends string = string,
> {
  readonly kind: K;
  /** Its steps, gates and approvals, in order: the runbook's script follows it, the CLI and Web UI show it. */
  readonly plan: P & { readonly kind: K };
  /** The workflow's input, as the workflow parses it (trust ends at its edge). */
  readonly input: S;
  /** The workflow function's name, as workflows/index.ts exports it for the worker. */
  readonly workflowType: W;
  /** What the Web UI shows of a run from its start: a summary line and its parameters. */
  describe(input: z.input<S>): LaunchDescription;
  /** The node and module locks a run takes before its first step (workflows/runbook/open.ts). */
  locks(input: z.output<S>): LockClaim;
  /** The fleet that runs this kind on many nodes, one child per node. */
  readonly fleet?: FleetForm<string>;
}

/** A kind's fleet form: its workflow, and the locks the fleet itself holds beside its nodes' own. */
export interface FleetForm<F extends string> {
  readonly workflowType: F;
  /** Absent: the fleet holds no lock of its own (each node's runbook holds its node's). */
  locks?(fleet: { module: string }): LockClaim;
}

export interface LaunchDescription {
  /** One line for the Temporal Web UI's list and the run's page. */
  summary: string;
  /** The run's parameters, in markdown; the kind's plan follows them in the Web UI's static details. */
  parameters: string[];
}

/**
 * What a runbook changes (nodes; modules whose spec it changes) and what it only relies on (modules it
 * pushes as they are): another runbook changing one of them waits, one only relying on them does not.
 */
export interface LockClaim {
  nodes: string[];
  modules: string[];
  reads?: string[];
  /** What the holder does, for the others' waiting sentence: "data-path-move of forge on forge1". */
  what: string;
}

/** Declares a kind with its name and input as literal types. */
export function defineKind<
  const K extends string,
  S extends z.ZodType,
  P extends RunbookPlan,
  const W extends string,
  const F extends string,
>(
  descriptor: KindDescriptor<K, S, P, W> & { readonly fleet?: FleetForm<F> },
): KindDescriptor<K, S, P, W> & { readonly fleet?: FleetForm<F> } {
  return descriptor;
}
