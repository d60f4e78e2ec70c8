import { DEMO_PUBLIC_NAMES } from '../../../mesh/local/scenarios/edge-flip-incident';
import { fleetMarker, FLEET_NODE_HEADER } from '../../../mesh/local/scenarios/edge-fleet';
import type { EdgeFlipInputArg } from '../../../workflows/contracts';

/** The predecessor every simulated node runs before its flip. */
export const SIMULATED_PREDECESSOR = 'simulated-caddy';

/**
 * A simulated fleet as both of the bench's processes know it: the bench starts its runbooks, the fleet's
 * worker simulates its nodes. `size` nodes, each serving on its own loopback address (the ports are the
 * same on every address, as every real edge listens on its own host's ports).
 */
export interface SimulatedFleetPlan {
  size: number;
  /** This bench run's own (a few hex digits): its nodes and module are named apart from any earlier run's. */
  tag: string;
  publicPort: number;
  stagingPort: number;
}

/**
 * The module the fleet flips to: one per run and size, so each fleet has a workflow id of its own, also on
 * the lab's long-lived server where earlier runs' fleets are kept.
 */
export const simulatedSuccessor = (plan: Pick<SimulatedFleetPlan, 'size' | 'tag'>) =>
  `simulated-edge-${plan.tag}-${plan.size}`;

export interface SimulatedNodeAddresses {
  node: string;
  /** 127.77.x.y: an address of this node's own on the loopback interface. */
  host: string;
}

/** Node i of the fleet and its own loopback address (127.77.0.2 onwards; up to 64,000 nodes). */
export function simulatedNodes(plan: SimulatedFleetPlan): SimulatedNodeAddresses[] {
  return Array.from({ length: plan.size }, (_, i) => ({
    node: `sim-${plan.tag}-${plan.size}-${i}`,
    host: `127.77.${Math.floor(i / 250)}.${(i % 250) + 2}`,
  }));
}

/** Each node's edge-flip input, the canary first. */
export function simulatedFleetRunbooks(
  plan: SimulatedFleetPlan,
  common: Pick<EdgeFlipInputArg, 'startedBy' | 'timings'>,
): EdgeFlipInputArg[] {
  const module = simulatedSuccessor(plan);
  return simulatedNodes(plan).map(({ node, host }) => ({
    ...common,
    node,
    module,
    predecessor: SIMULATED_PREDECESSOR,
    publicNames: DEMO_PUBLIC_NAMES,
    publicAddress: `http://${host}:${plan.publicPort}`,
    successorAddress: `http://${host}:${plan.stagingPort}`,
    successorMarker: fleetMarker(module, node),
    predecessorMarker: fleetMarker(SIMULATED_PREDECESSOR, node),
    nodeHeader: FLEET_NODE_HEADER,
  }));
}
