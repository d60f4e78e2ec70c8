import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { hostPathOnNode } from '../../../docker/placement';
import type { ModuleSpecInput } from '../../schemas';
import { waitForApplyReport } from '../../wait-for-apply';
import type { LocalMesh } from '../local-mesh';

/**
 * The forge incident, set up on the local mesh: a forge-like module under the `roll-out` policy, serving
 * its data from the old host path, with a few files of data there.
 */
export interface ForgeScenarioOptions {
  node: string;
  module: string;
  image: string;
  from: string;
  port: number;
}

export function forgeSpec(o: ForgeScenarioOptions): ModuleSpecInput {
  return {
    module: o.module,
    upgradePolicy: 'roll-out',
    dataDirs: [o.from],
    containers: [
      {
        name: 'web',
        image: o.image,
        command: ['sh', '-c', `httpd -f -p 127.0.0.1:${o.port} -h /data & trap 'kill $!; exit 0' TERM; wait`],
        network: 'host',
        mounts: [{ hostPath: o.from, containerPath: '/data' }],
        healthcheck: {
          test: ['CMD', 'wget', '-q', '-O', '/dev/null', `http://127.0.0.1:${o.port}/index.html`],
          intervalSeconds: 1,
          retries: 3,
        },
      },
    ],
  };
}

/** A small but real data tree: an index page, repositories with many small files, one larger pack. */
async function writeForgeData(root: string, module: string): Promise<void> {
  const files: [string, string | Buffer][] = [['index.html', `served by ${module} from its data dir\n`]];
  for (let repo = 0; repo < 5; repo++) {
    for (let object = 0; object < 40; object++)
      files.push([`repos/r${repo}/objects/${object}.obj`, `repo ${repo} object ${object}\n`.repeat(50)]);
    files.push([`repos/r${repo}/pack.bin`, Buffer.alloc(1 << 20, repo)]);
  }
  for (const [path, content] of files) {
    await mkdir(dirname(`${root}/${path}`), { recursive: true });
    await writeFile(`${root}/${path}`, content);
  }
}

/** Seeds a (not adopted) node with the module running on `from`, its data in place. */
export async function seedForgeScenario(
  mesh: LocalMesh,
  o: ForgeScenarioOptions,
): Promise<{ address: string }> {
  const node = await mesh.createNode(o.node, { adopted: false });
  await writeForgeData(hostPathOnNode(node.hostRoot, o.from), o.module);
  await mesh.defineModule(forgeSpec(o));
  await mesh.assign(o.module, o.node);
  const receipt = await mesh.push(o.node);
  const report = await waitForApplyReport(mesh, o.node, receipt.pushId, { timeoutMs: 120_000 });
  if (report.applied !== receipt.sent)
    throw new Error(`seeding ${o.module} applied ${report.applied} of ${receipt.sent}`);
  return { address: `http://127.0.0.1:${o.port}` };
}
