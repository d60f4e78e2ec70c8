import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hostPathOnNode } from '../../../docker/placement';
import { waitForApplyReport } from '../../wait-for-apply';
import type { LocalMesh } from '../local-mesh';

/**
 * A module of one long-running container mounting `from` (policy `roll-out`, no port, so many nodes share
 * one engine), assigned to each of `nodes`, each with a file of its own on `from`. Returns each node's root.
 */
export async function seedStoreFleet(
  mesh: LocalMesh,
  o: { module: string; image: string; from: string; nodes: readonly string[] },
): Promise<string[]> {
  await mesh.defineModule({
    module: o.module,
    upgradePolicy: 'roll-out',
    dataDirs: [o.from],
    containers: [
      {
        name: 'web',
        image: o.image,
        command: ['sh', '-c', "trap 'exit 0' TERM; while true; do sleep 1; done"],
        mounts: [{ hostPath: o.from, containerPath: '/data' }],
      },
    ],
  });
  const roots: string[] = [];
  for (const node of o.nodes) {
    const { hostRoot } = await mesh.createNode(node, { adopted: false });
    roots.push(hostRoot);
    await mkdir(hostPathOnNode(hostRoot, o.from), { recursive: true });
    await writeFile(join(hostPathOnNode(hostRoot, o.from), 'owner.txt'), `the data of ${node}\n`);
    await mesh.assign(o.module, node);
    const receipt = await mesh.push(node);
    await waitForApplyReport(mesh, node, receipt.pushId, { timeoutMs: 120_000 });
  }
  return roots;
}
