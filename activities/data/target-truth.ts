import { Baseline, baselineId, type BaselineStore } from './baseline-store';
import type { LocatedMove } from './locate';
import { hasEntries } from './mirror';

/** B of a move is the truth: a baseline of the move was recorded after a verified copy, and B holds data. */
export interface TargetTruth {
  /** When the baseline was recorded (or last moved forward by a catch-up); undefined if it does not parse. */
  recordedAt: string | undefined;
}

/**
 * Whether B already is the truth of this move: once a baseline of it exists, a container may have run
 * on B and written there, so copying A over B again (a runbook reset to before its copy) would undo
 * those writes. A baseline whose B is empty or gone describes nothing left to protect: undefined.
 */
export async function targetTruth(store: BaselineStore, at: LocatedMove): Promise<TargetTruth | undefined> {
  const found = await store.find(baselineId(at.node, at.from, at.to));
  if (!found || !(await hasEntries(at.hostTo))) return undefined;
  let recordedAt: string | undefined;
  try {
    recordedAt = Baseline.safeParse(JSON.parse(found.text)).data?.recordedAt;
  } catch {
    recordedAt = undefined;
  }
  return { recordedAt };
}

/** A copy refused because B already is the truth; the message is one sentence for the operator. */
export class TargetIsTruthError extends Error {
  override readonly name = 'TargetIsTruthError';
}

/** The sentence that refuses to copy A over B once B is the truth. */
export function truthRefusal(at: LocatedMove, truth: TargetTruth, refused: string): TargetIsTruthError {
  const since = truth.recordedAt ? ` at ${truth.recordedAt}` : '';
  return new TargetIsTruthError(
    `The target path ${at.to} on node ${at.node} already is the truth of the move from ${at.from}: its baseline was recorded${since} after a verified copy and it holds data a container may have written since, so ${refused}.`,
  );
}

/**
 * Before a copy into B: refuses when B is the truth; forgets a baseline of an earlier move of these paths
 * whose B was emptied since, so neither this copy nor its retries mistake it for the truth.
 */
export async function refuseCopyOverTruth(store: BaselineStore, at: LocatedMove): Promise<void> {
  const truth = await targetTruth(store, at);
  if (truth) throw truthRefusal(at, truth, `${at.from} is not copied over it`);
  if (!(await hasEntries(at.hostTo))) await store.remove(baselineId(at.node, at.from, at.to));
}
