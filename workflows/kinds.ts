import { z } from 'zod';
import { DATA_PATH_MOVE_KIND } from './data-path-move-kind';
import { EDGE_FLIP_KIND } from './edge-flip-kind';
import type * as Workflows from './index';
import type { KindDescriptor, LaunchDescription } from './runbook/kind';
import { renderPlan } from './runbook/plan';

/**
 * Every runbook kind, one line each: the CLI, the worker, the Web UI details, the config, the lock keeper
 * and the replay tests all read this list (bundle-safe; the operator's side of each kind is keyed by its
 * name in cli/runbook/operator-kinds/).
 */
export const KINDS = [EDGE_FLIP_KIND, DATA_PATH_MOVE_KIND] as const;

/** Each kind's workflow and fleet workflow, as workflows/index.ts must export them for the worker. */
export type KindWorkflowType =
  (typeof KINDS)[number]['workflowType'] | NonNullable<(typeof KINDS)[number]['fleet']>['workflowType'];
type Unregistered = Exclude<KindWorkflowType, keyof typeof Workflows>;
/** Fails to compile when a kind's workflow is not exported from workflows/index.ts. */
export const EVERY_KIND_REGISTERED: [Unregistered] extends [never] ? true : Unregistered = true;

/** A list of kinds a surface reads: KINDS, or in a test KINDS with a fixture kind added. */
export type KindRegistry = readonly KindDescriptor[];

export type RunbookKind = (typeof KINDS)[number]['kind'];
export const RUNBOOK_KINDS = KINDS.map((descriptor) => descriptor.kind) as [RunbookKind, ...RunbookKind[]];
export const RunbookKind = z.enum(RUNBOOK_KINDS);

/** The descriptor of one kind, by its name. */
export type KindOf<K extends RunbookKind> = Extract<(typeof KINDS)[number], { kind: K }>;

export function kindNamed<K extends RunbookKind>(kind: K): KindOf<K>;
export function kindNamed(kind: string, registry: KindRegistry): KindDescriptor | undefined;
export function kindNamed(kind: string, registry: KindRegistry = KINDS): KindDescriptor | undefined {
  return registry.find((descriptor) => descriptor.kind === kind);
}

/** The kind of runbook a workflow type runs: its own, or for a fleet the kind each of its nodes runs. */
export function kindOfWorkflowType(type: string): RunbookKind | undefined;
export function kindOfWorkflowType(type: string, registry: KindRegistry): string | undefined;
export function kindOfWorkflowType(type: string, registry: KindRegistry = KINDS): string | undefined {
  return registry.find((d) => d.workflowType === type || d.fleet?.workflowType === type)?.kind;
}

/** Every workflow type that is a runbook: each kind's, and each fleet's. */
export function runbookWorkflowTypes(registry: KindRegistry = KINDS): string[] {
  return [...registry.map((d) => d.workflowType), ...fleetWorkflowTypes(registry)];
}

/** Each fleet's workflow type. */
export function fleetWorkflowTypes(registry: KindRegistry = KINDS): string[] {
  return registry.flatMap((d) => (d.fleet ? [d.fleet.workflowType] : []));
}

/** The workflow types that ask the lock keeper for locks: every kind's, and each fleet that holds its own. */
export function lockingWorkflowTypes(registry: KindRegistry = KINDS): string[] {
  return [
    ...registry.map((d) => d.workflowType),
    ...registry.flatMap((d) => (d.fleet?.locks ? [d.fleet.workflowType] : [])),
  ];
}

/**
 * What the Web UI shows of a runbook from its start: its kind's own summary line and parameters, and the
 * kind's plan (markdown) that follows them in the static details.
 */
export function launchDescription(
  kind: string,
  input: unknown,
  registry: KindRegistry = KINDS,
): LaunchDescription & { plan: string } {
  const descriptor = kindNamed(kind, registry);
  if (!descriptor) throw new TypeError(`${kind} is no runbook kind`);
  return { ...descriptor.describe(input), plan: renderPlan(descriptor.plan) };
}
