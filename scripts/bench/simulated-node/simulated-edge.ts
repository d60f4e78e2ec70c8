import { createServer, type Server } from 'node:http';
import { LABEL } from '../../../docker/labels';
import { fleetMarker, FLEET_NODE_HEADER } from '../../../mesh/local/scenarios/edge-fleet';
import type { SimulatedEngine } from './simulated-engine';

/** Which of the node's two edge modules is which, and where the node listens. */
export interface SimulatedEdgeSite {
  node: string;
  host: string;
  publicPort: number;
  stagingPort: number;
  predecessor: string;
  successor: string;
}

/**
 * A simulated node's edge, answering real HTTP on the node's own loopback address as the fleet's busybox
 * edges do (mesh/local/scenarios/edge-fleet.ts): the successor on the staging port as soon as its edge
 * container runs, the public port by whichever edge runs (the predecessor holds it while it runs). A port
 * no edge serves drops the connection. Used by the bench only.
 */
export async function serveSimulatedEdge(
  site: SimulatedEdgeSite,
  engine: SimulatedEngine,
): Promise<Server[]> {
  const runs = (module: string) =>
    engine.labelled({ [LABEL.module]: module, [LABEL.container]: 'edge' }).some((c) => c.running);
  const onPublic = () => [site.predecessor, site.successor].find(runs);
  const onStaging = () => (runs(site.successor) ? site.successor : undefined);
  return Promise.all([listen(site, site.publicPort, onPublic), listen(site, site.stagingPort, onStaging)]);
}

function listen(site: SimulatedEdgeSite, port: number, serving: () => string | undefined): Promise<Server> {
  const server = createServer((request, response) => {
    const module = serving();
    if (module === undefined) return void request.socket.destroy();
    response.writeHead(200, { 'content-type': 'text/plain', [FLEET_NODE_HEADER]: site.node });
    response.end(`${fleetMarker(module, site.node)}\n`);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, site.host, () => resolve(server));
  });
}
