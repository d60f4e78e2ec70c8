import { ApplicationFailure } from '@temporalio/workflow';
import { FAILURE } from './contracts';
import { act, routeNodeWorkToNodes } from './runbook/activities';

/** The node-local reads a plan makes; nothing here changes anything on a node. */
export const PLAN_NODE_READS = [
  'runningModuleContainers',
  'inspectModuleContainers',
  'containersUsingPath',
  'preflightMove',
  'pathExists',
] as const;
export type PlanNodeRead = (typeof PLAN_NODE_READS)[number];

export interface PlanNodeReadRequest {
  activity: PlanNodeRead;
  /** The activity's input; it names the node whose own worker reads. */
  input: { node: string };
}

/**
 * One read of a plan, done by the node's own worker: where the node's disk and engine are reachable only
 * from the node itself (a real fleet), `mesh runbook plan` asks through this short workflow. Reads only.
 */
export async function planNodeRead(request: PlanNodeReadRequest): Promise<unknown> {
  if (!(PLAN_NODE_READS as readonly string[]).includes(request.activity))
    throw ApplicationFailure.nonRetryable(`${request.activity} is not a plan's read`, FAILURE.invalidInput);
  routeNodeWorkToNodes();
  const read = act[request.activity] as (input: unknown) => Promise<unknown>;
  return read(request.input);
}
