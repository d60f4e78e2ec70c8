import type { Server } from 'node:http';
import { waitForApplyReport } from '../../../mesh/wait-for-apply';
import { fleetPredecessorSpec, fleetSuccessorSpec } from '../../../mesh/local/scenarios/edge-fleet';
import type { ActivityDeps } from '../../../activities';
import type { NodeSite } from '../../../worker/create-worker';
import { serveSimulatedEdge } from './simulated-edge';
import {
  SIMULATED_PREDECESSOR,
  simulatedNodes,
  simulatedSuccessor,
  type SimulatedFleetPlan,
} from './simulated-fleet';
import { SimulatedMesh } from './simulated-mesh';

/** Where a simulated node's host paths would be: never created, nothing is written under it. */
const hostRootOf = (node: string) => `/simulated-node/${node}`;

/** The simulated fleet in the worker's process: its mesh, its node agents and engines, and their edges. */
export interface SimulatedFleetNodes {
  deps: Pick<ActivityDeps, 'mesh' | 'dockerFor' | 'hostRootOf'>;
  sites: NodeSite[];
  close(): Promise<void>;
}

/**
 * Brings up the plan's nodes as simulated nodes, each running the predecessor (assigned and pushed, as the
 * local fleet is seeded), its edge answering on its own address; the deps a runbook worker's activities
 * need to reach them, and the sites its node workers serve.
 */
export async function startSimulatedFleetNodes(plan: SimulatedFleetPlan): Promise<SimulatedFleetNodes> {
  const mesh = new SimulatedMesh();
  const successor = simulatedSuccessor(plan);
  mesh.defineModule(fleetPredecessorSpec(SIMULATED_PREDECESSOR));
  mesh.defineModule(fleetSuccessorSpec(successor));
  const servers: Server[] = [];
  const close = () =>
    Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())))).then(
      () => undefined,
    );
  try {
    for (const { node, host } of simulatedNodes(plan)) {
      const agent = mesh.addNode(node, hostRootOf(node));
      await mesh.assign(SIMULATED_PREDECESSOR, node);
      const receipt = await mesh.push(node);
      await waitForApplyReport(mesh, node, receipt.pushId, { timeoutMs: 5_000 });
      const site = { node, host, ...plan, predecessor: SIMULATED_PREDECESSOR, successor };
      servers.push(...(await serveSimulatedEdge(site, agent.engine)));
    }
  } catch (error) {
    await close();
    throw error;
  }
  return {
    deps: {
      mesh,
      dockerFor: (node) => mesh.agent(node).engine,
      hostRootOf: async (node) => mesh.agent(node).hostRoot,
    },
    sites: simulatedNodes(plan).map(({ node }) => ({ node, hostRoot: hostRootOf(node) })),
    close,
  };
}
