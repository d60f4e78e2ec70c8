import {
  allHandlersFinished,
  condition,
  continueAsNew,
  deprecatePatch,
  workflowInfo,
} from '@temporalio/workflow';
import type { FleetApproval } from '../contracts';
import type { Progress } from '../runbook/progress';
import { FLEET_CONTINUE_AS_NEW } from '../runbook/revision';
import { FLEET_HISTORY_BOUND, type AnyFleetInput } from './contracts';
import type { FleetNodes } from './nodes';

/**
 * Whether the fleet should continue as new before its next node start: this run's history passed half the
 * bound. Its second half is left for the nodes running then to end in (mostAtOnce of them).
 */
export function pastHalfTheBound(input: AnyFleetInput): boolean {
  const bound = input.historyBound ?? FLEET_HISTORY_BOUND;
  if (workflowInfo().historyLength <= bound / 2) return false;
  deprecatePatch(FLEET_CONTINUE_AS_NEW);
  return true;
}

/**
 * Continues the fleet as a new run that goes on where this one stands: the same input, its status, its
 * nodes' ends and the approval the later nodes run on. Call only when no node runs: a child's result is
 * awaited by the run that started it, and the children's parent close policy would cancel them.
 */
export async function continueTheFleet(
  input: AnyFleetInput,
  {
    progress,
    nodes,
    approval,
  }: { progress: Progress; nodes: FleetNodes; approval: FleetApproval | undefined },
): Promise<never> {
  await condition(allHandlersFinished);
  return continueAsNew<(input: AnyFleetInput) => Promise<unknown>>({
    ...input,
    carried: {
      status: progress.status,
      ended: nodes.ends(),
      ...(approval ? { approval } : {}),
      runs: (input.carried?.runs ?? 0) + 1,
    },
  });
}
