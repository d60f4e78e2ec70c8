import { deprecatePatch, getExternalWorkflowHandle } from '@temporalio/workflow';
import { z } from 'zod';
import { Name } from '../mesh/schemas';
import { parseInput } from './contracts';
import { clearMarkSignal, nodeMarkId, type Clearance } from './node-mark-contracts';
import { CLEARANCE_CLEARS_MARK } from './runbook/revision';

export type { Clearance } from './node-mark-contracts';

export const ClearNodeInput = z.strictObject({
  node: Name,
  /** Who looked at the node. */
  by: z.string().trim().min(1),
  /** What they found and did: kept in this run's history, shown to whoever starts the next runbook. */
  reason: z.string().trim().min(3, 'say what you found and did'),
});
export type ClearNodeInput = z.input<typeof ClearNodeInput>;

/**
 * An operator's word that a node left by a runbook that did not end cleanly has been looked at. It runs
 * under the node's runbook id (so never beside a runbook there), is the run `mesh runbook history` shows,
 * and clears the node's durable mark (workflows/node-mark.ts), which the next runbook checks.
 */
export async function clearNode(rawInput: ClearNodeInput): Promise<Clearance> {
  const { node, by, reason } = parseInput(ClearNodeInput, rawInput);
  const clearance = { by, reason, at: new Date().toISOString() };
  deprecatePatch(CLEARANCE_CLEARS_MARK);
  await getExternalWorkflowHandle(nodeMarkId(node))
    .signal(clearMarkSignal, clearance)
    .catch(() => undefined); // no open mark: a node left before marks were durable
  return clearance;
}
