import type { DataPathMoveInput, EdgeFlipInput } from '../../workflows/contracts';
import type { PlanReport } from '../../workflows/plan-report';
import { planDataPathMove } from './data-path-move';
import { planEdgeFlip } from './edge-flip';
import type { PlanReader } from './reader';

export type PlanRequest =
  | { kind: 'edge-flip'; input: EdgeFlipInput }
  | {
      kind: 'data-path-move';
      input: DataPathMoveInput;
      /** The nodes move as a fleet, node by node: once the spec mounts B, a node on B already is left out. */
      asFleet?: boolean;
    };

/** What the runbook of this kind and input is predicted to do on the node as it is now; changes nothing. */
export function makePlan(reader: PlanReader, request: PlanRequest): Promise<PlanReport> {
  return request.kind === 'edge-flip'
    ? planEdgeFlip(reader, request.input)
    : planDataPathMove(reader, request.input, request.asFleet ?? false);
}

export { planReaderFrom, type PlanReader } from './reader';
export { nodeOutcomeLines, planAsLines } from './render';
