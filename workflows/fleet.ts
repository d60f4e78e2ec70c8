import { parseInput, type RunbookStatus } from './contracts';
import { EDGE_FLIP_STANDS_FOR, EdgeFlipFleetInput, type EdgeFlipFleetInputArg } from './fleet/contracts';
import { runFleet } from './fleet/run';

/**
 * Flips a fleet of nodes: each node's own edge-flip runbook runs as a child workflow, as every fleet runs
 * its nodes (fleet/run.ts). After the canary, a fleet approval lets a clean node stop its predecessor.
 */
export async function edgeFlipFleet(rawInput: EdgeFlipFleetInputArg): Promise<RunbookStatus> {
  const input = parseInput(EdgeFlipFleetInput, rawInput);
  return runFleet(
    input,
    {
      kind: 'edge-flip',
      standsFor: EDGE_FLIP_STANDS_FOR,
      child: (runbook, approval) => ({
        kind: 'edge-flip',
        input: approval ? { ...runbook, fleetApproval: approval } : runbook,
      }),
    },
    rawInput,
  );
}
