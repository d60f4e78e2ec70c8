import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hostPathOnNode } from '../../../docker/placement';
import type { ModuleSpecInput } from '../../schemas';
import { waitForApplyReport } from '../../wait-for-apply';
import type { LocalMesh } from '../local-mesh';
import { DEMO_PUBLIC_NAMES, type EdgeScenario } from './edge-flip-incident';

/**
 * The novox incident across a fleet on one Docker engine: every node runs the same two modules, as a real
 * fleet does, and each node's own config (`/etc/edge/public-port`, `/etc/edge/staging-port` under its host
 * root) says where its edge listens, as a real node's own address would, and `/etc/edge/node` its name,
 * which its edges put in every answer (body and X-Served-By header) so a probe can tell which node answered. Nodes with `leftovers` carry
 * the data dirs a rolled-back attempt left, so route-proxy is held there until taken.
 */
export interface FleetNodeSeed {
  node: string;
  publicPort: number;
  stagingPort: number;
  leftovers: boolean;
}

const IMAGE = 'mesh-local/busybox:latest';
const CONFIG = '/etc/edge';
const PUBLIC = `$(cat ${CONFIG}/public-port)`;
const STAGING = `$(cat ${CONFIG}/staging-port)`;
const NODE = `$(cat ${CONFIG}/node)`;

/** The answer header in which every edge of the fleet names its node. */
export const FLEET_NODE_HEADER = 'X-Served-By';

/**
 * What a node's edge answers with, from a CGI script busybox httpd runs for `/`: the node's name in the
 * X-Served-By header, the module and the node's name in the body, ended by a full stop.
 */
const page = (module: string) =>
  [
    'mkdir -p /www/cgi-bin',
    'rm -f /www/index.html',
    "echo '#!/bin/sh' > /www/cgi-bin/index.cgi",
    `echo "printf 'Content-Type: text/plain\\r\\n${FLEET_NODE_HEADER}: ${NODE}\\r\\n\\r\\nserved by ${module} on ${NODE}.\\n'" >> /www/cgi-bin/index.cgi`,
    'chmod +x /www/cgi-bin/index.cgi',
  ].join(' && ');

/** The marker of `module`'s answers on `node` (so `edge1.` is never part of `edge10.`'s). */
export function fleetMarker(module: string, node: string): string {
  return `served by ${module} on ${node}.`;
}
const config = { hostPath: CONFIG, containerPath: CONFIG, readOnly: true };

const health = (port: string) => ({
  test: ['CMD', 'sh', '-c', `wget -q -O /dev/null http://127.0.0.1:${port}/`],
  intervalSeconds: 1,
  retries: 3,
});

export function fleetPredecessorSpec(module: string): ModuleSpecInput {
  const serve = `mkdir -p /www && ${page(module)} && httpd -f -p 127.0.0.1:${PUBLIC} -h /www & trap 'kill $!; exit 0' TERM; wait`;
  return {
    module,
    containers: [
      {
        name: 'edge',
        image: IMAGE,
        network: 'host',
        command: ['sh', '-c', serve],
        mounts: [config],
        healthcheck: health(PUBLIC),
      },
    ],
  };
}

/** Answers on the node's staging port at once, and takes its public port as soon as it is free. */
export function fleetSuccessorSpec(module: string): ModuleSpecInput {
  const dir = (name: string) => `/var/lib/${module}/${name}`;
  const edge = `${page(module)} && httpd -p 127.0.0.1:${STAGING} -h /www && until httpd -f -p 127.0.0.1:${PUBLIC} -h /www; do sleep 0.5; done`;
  const sleeper = (name: string) => ({
    name,
    image: IMAGE,
    command: ['sleep', '1000000'],
    mounts: [{ hostPath: dir(name), containerPath: `/${name}` }],
  });
  return {
    module,
    dataDirs: [dir('www'), dir('ca'), dir('dns')],
    containers: [
      {
        name: 'edge',
        image: IMAGE,
        network: 'host',
        command: ['sh', '-c', edge],
        mounts: [{ hostPath: dir('www'), containerPath: '/www' }, config],
        healthcheck: health(STAGING),
      },
      sleeper('ca'),
      sleeper('dns'),
    ],
  };
}

/**
 * Seeds every node (adopted, its edge config written, the predecessor serving) and the two fleet-wide
 * modules; returns each node's edge-flip addresses, in the order given.
 */
export async function seedEdgeFleet(
  mesh: LocalMesh,
  o: { predecessor: string; successor: string; nodes: FleetNodeSeed[] },
): Promise<(EdgeScenario & { node: string })[]> {
  await mesh.defineModule(fleetPredecessorSpec(o.predecessor));
  const successor = await mesh.defineModule(fleetSuccessorSpec(o.successor));
  const seeded = [];
  for (const seed of o.nodes) {
    const node = await mesh.createNode(seed.node, { adopted: true });
    const own = hostPathOnNode(node.hostRoot, CONFIG);
    await mkdir(own, { recursive: true });
    await writeFile(join(own, 'public-port'), `${seed.publicPort}\n`);
    await writeFile(join(own, 'staging-port'), `${seed.stagingPort}\n`);
    await writeFile(join(own, 'node'), `${seed.node}\n`);
    await mesh.assign(o.predecessor, seed.node);
    const receipt = await mesh.push(seed.node);
    const report = await waitForApplyReport(mesh, seed.node, receipt.pushId, { timeoutMs: 120_000 });
    if (report.applied !== receipt.sent)
      throw new Error(
        `seeding ${o.predecessor} on ${seed.node} applied ${report.applied} of ${receipt.sent}`,
      );
    if (seed.leftovers)
      for (const dir of successor.dataDirs)
        await mkdir(hostPathOnNode(node.hostRoot, dir), { recursive: true });
    seeded.push({
      node: seed.node,
      publicAddress: `http://127.0.0.1:${seed.publicPort}`,
      successorAddress: `http://127.0.0.1:${seed.stagingPort}`,
      successorMarker: fleetMarker(o.successor, seed.node),
      predecessorMarker: fleetMarker(o.predecessor, seed.node),
      publicNames: DEMO_PUBLIC_NAMES,
    });
  }
  return seeded;
}
