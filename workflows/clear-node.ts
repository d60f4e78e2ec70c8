import { z } from 'zod';
import { Name } from '../mesh/schemas';
import { parseInput } from './contracts';

export const ClearNodeInput = z.strictObject({
  node: Name,
  /** Who looked at the node. */
  by: z.string().trim().min(1),
  /** What they found and did: kept in this run's history, shown to whoever starts the next runbook. */
  reason: z.string().trim().min(3, 'say what you found and did'),
});
export type ClearNodeInput = z.input<typeof ClearNodeInput>;

export interface Clearance {
  by: string;
  reason: string;
  at: string;
}

/**
 * An operator's word that a node whose runbook could not roll back has been looked at. It runs under the
 * node's runbook id (so never beside a runbook there) and is the run the next runbook finds before it.
 */
export async function clearNode(rawInput: ClearNodeInput): Promise<Clearance> {
  const { by, reason } = parseInput(ClearNodeInput, rawInput);
  return { by, reason, at: new Date().toISOString() };
}
