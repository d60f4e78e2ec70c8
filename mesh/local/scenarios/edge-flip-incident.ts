import { mkdir } from 'node:fs/promises';
import { hostPathOnNode } from '../../../docker/placement';
import type { ModuleSpecInput } from '../../schemas';
import { waitForApplyReport } from '../../wait-for-apply';
import type { LocalMesh } from '../local-mesh';

/**
 * The novox incident, set up on the local mesh: an adopted node whose predecessor edge serves the public
 * names, a three-container successor, and the data dirs an earlier, rolled-back attempt left on disk.
 */
export interface EdgeScenarioOptions {
  node: string;
  predecessor: string;
  successor: string;
  publicPort: number;
  stagingPort: number;
  /** Leave the successor's data dirs on disk, as the rolled-back first attempt did. */
  leftovers: boolean;
  /** Make the successor's edge container misbehave, to prove the runbook never stops the predecessor then. */
  successorFault?: 'exits' | 'unhealthy';
}

export interface EdgeScenario {
  publicAddress: string;
  successorAddress: string;
  successorMarker: string;
  predecessorMarker: string;
  publicNames: string[];
}

export const DEMO_PUBLIC_NAMES = ['git.example.test', 'photos.example.test', 'mail.example.test'];

const IMAGE = 'mesh-local/busybox:latest';

function httpHealth(port: number) {
  return {
    test: ['CMD', 'wget', '-q', '-O', '/dev/null', `http://127.0.0.1:${port}/`],
    intervalSeconds: 1,
    retries: 3,
  };
}

export function predecessorSpec(module: string, publicPort: number): ModuleSpecInput {
  const serve = `mkdir -p /www && echo "served by ${module}" > /www/index.html && httpd -f -p 127.0.0.1:${publicPort} -h /www & trap 'kill $!; exit 0' TERM; wait`;
  return {
    module,
    containers: [
      {
        name: 'edge',
        image: IMAGE,
        network: 'host',
        command: ['sh', '-c', serve],
        healthcheck: httpHealth(publicPort),
      },
    ],
  };
}

/** The successor answers on its staging port at once and takes the public port as soon as it is free. */
export function successorSpec(
  module: string,
  o: Pick<EdgeScenarioOptions, 'publicPort' | 'stagingPort' | 'successorFault'>,
): ModuleSpecInput {
  const page = `echo "served by ${module}" > /www/index.html`;
  const staging = `httpd -p 127.0.0.1:${o.stagingPort} -h /www`;
  const takePublic = `until httpd -f -p 127.0.0.1:${o.publicPort} -h /www; do sleep 0.5; done`;
  const edge = o.successorFault === 'exits' ? 'sleep 2; exit 3' : `${page} && ${staging} && ${takePublic}`;
  const health =
    o.successorFault === 'unhealthy'
      ? { test: ['CMD', 'false'], intervalSeconds: 1, retries: 1 }
      : httpHealth(o.stagingPort);
  const dir = (name: string) => `/var/lib/${module}/${name}`;
  return {
    module,
    dataDirs: [dir('www'), dir('ca'), dir('dns')],
    containers: [
      {
        name: 'edge',
        image: IMAGE,
        network: 'host',
        command: ['sh', '-c', edge],
        mounts: [{ hostPath: dir('www'), containerPath: '/www' }],
        healthcheck: health,
      },
      {
        name: 'ca',
        image: IMAGE,
        command: ['sleep', '1000000'],
        mounts: [{ hostPath: dir('ca'), containerPath: '/ca' }],
      },
      {
        name: 'dns',
        image: IMAGE,
        command: ['sleep', '1000000'],
        mounts: [{ hostPath: dir('dns'), containerPath: '/dns' }],
      },
    ],
  };
}

/** Seeds the node, both modules and the leftovers, and brings the predecessor up serving the public names. */
export async function seedEdgeScenario(mesh: LocalMesh, o: EdgeScenarioOptions): Promise<EdgeScenario> {
  const node = await mesh.createNode(o.node, { adopted: true });
  await mesh.defineModule(predecessorSpec(o.predecessor, o.publicPort));
  const successor = await mesh.defineModule(successorSpec(o.successor, o));
  await mesh.assign(o.predecessor, o.node);
  const receipt = await mesh.push(o.node);
  const report = await waitForApplyReport(mesh, o.node, receipt.pushId, { timeoutMs: 120_000 });
  if (report.applied !== receipt.sent)
    throw new Error(`seeding ${o.predecessor} applied ${report.applied} of ${receipt.sent}`);
  if (o.leftovers) {
    for (const dir of successor.dataDirs)
      await mkdir(hostPathOnNode(node.hostRoot, dir), { recursive: true });
  }
  return {
    publicAddress: `http://127.0.0.1:${o.publicPort}`,
    successorAddress: `http://127.0.0.1:${o.stagingPort}`,
    successorMarker: `served by ${o.successor}`,
    predecessorMarker: `served by ${o.predecessor}`,
    publicNames: DEMO_PUBLIC_NAMES,
  };
}
