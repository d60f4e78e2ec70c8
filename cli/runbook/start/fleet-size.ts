import type { DataPathMoveInput, EdgeFlipInput } from '../../../workflows/contracts';
import { UsageError } from '../../errors';

/**
 * What a fleet may carry into a run it continues as (its whole input and each node's end and step), kept
 * under Temporal's default payload limit (`limit.blobSize.error`, 2 MB) with room for ends longer than clean.
 */
export const FLEET_CARRIED_MOST_BYTES = 1_500_000;

const AN_INSTANT = '2026-01-01T00:00:00.000Z';
/** The carried status's own fields and the waves' approval: under 1 KB recorded, so 4 KB is generous. */
export const FIXED_BYTES = 4_000;
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/**
 * The bytes a fleet carries into its last continue-as-new when every node ended clean: its input, and for
 * each node its end and its step, whose sentences name what the node's runbook did (an edge flip's public
 * names, a move's paths).
 */
export function carriedBytes(input: { runbooks: (EdgeFlipInput | DataPathMoveInput)[] }): number {
  let total = FIXED_BYTES + bytes(input);
  for (const runbook of input.runbooks) {
    const { node } = runbook;
    const outcome = cleanOutcome(runbook);
    total += bytes({ node, phase: 'completed', outcome, acknowledged: false });
    total += bytes({
      name: node,
      state: 'done',
      startedAt: AN_INSTANT,
      note: `completed: ${outcome}`,
      endedAt: AN_INSTANT,
    });
  }
  return total;
}

/** A clean node's outcome, as its runbook words it at the end. */
function cleanOutcome(runbook: EdgeFlipInput | DataPathMoveInput): string {
  const { node, module } = runbook;
  if ('from' in runbook) return `${module} runs on ${runbook.to} on ${node}; ${runbook.from} removed`;
  return `${module} serves ${runbook.publicNames.join(', ')} on ${node}; ${runbook.predecessor} is stopped and unassigned`;
}

/** A fleet whose carried state would pass Temporal's payload limit at a continue-as-new is refused at start. */
export function refuseOversizedFleet(input: { runbooks: (EdgeFlipInput | DataPathMoveInput)[] }): void {
  const carried = carriedBytes(input);
  if (carried <= FLEET_CARRIED_MOST_BYTES) return;
  const nodes = input.runbooks.length;
  const most = Math.floor((nodes * FLEET_CARRIED_MOST_BYTES) / carried);
  const mb = (n: number) => (n / 1_000_000).toFixed(1);
  throw new UsageError(
    `A fleet of ${nodes} nodes would carry about ${mb(carried)} MB into each run it continues as (its input and every node's end), more than the ${mb(FLEET_CARRIED_MOST_BYTES)} MB that stays under Temporal's 2 MB payload limit.`,
    `Split it into fleets of at most ${most} nodes each (--nodes a,b,c).`,
  );
}
