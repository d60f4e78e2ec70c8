import { stat } from 'node:fs/promises';
import { startRunbook } from '../../../client/start-runbook';
import { DockerEngine } from '../../../docker/engine';
import { containerName, hostPathOnNode } from '../../../docker/placement';
import { seedForgeScenario } from '../../../mesh/local/scenarios/forge-move';
import { dataPathMove } from '../../../workflows';
import { DataPathMoveInput, type DataPathMoveInputArg } from '../../../workflows/contracts';
import { say, type DemoRunbook, type DemoStory } from './story';

const FROM = '/srv/forge';
const TO = '/var/lib/forge';

async function mountedSource(node: string): Promise<string> {
  const inspected = await new DockerEngine().inspect(containerName(node, 'forge', 'web'));
  return inspected?.Mounts.find((mount) => mount.Destination === '/data')?.Source ?? '(no container)';
}

/** The forge incident: a roll-out module whose data moves, and a mesh that does not recreate the container. */
export const dataPathMoveDemo: DemoStory = {
  kind: 'data-path-move',
  defaultNode: 'forge1',
  async seed(mesh, node, port) {
    const web = await port(18090);
    say(
      `seeding node ${node}: module forge (policy roll-out) serves its data from ${FROM} on 127.0.0.1:${web}`,
    );
    await seedForgeScenario(mesh, {
      node,
      module: 'forge',
      image: 'mesh-local/forge:latest',
      from: FROM,
      port: web,
    });
    say(`forge's container mounts ${await mountedSource(node)}`);
    return dataPathMoveRunbook({
      node,
      module: 'forge',
      from: FROM,
      to: TO,
      containers: ['web'],
      startedBy: 'demo',
    });
  },
  reopen: (recorded) => dataPathMoveRunbook(DataPathMoveInput.parse(recorded)),
};

function dataPathMoveRunbook(input: DataPathMoveInputArg): DemoRunbook {
  const { node } = input;
  return {
    node,
    input,
    start: (client, taskQueue) => startRunbook(client, dataPathMove, input, { taskQueue }),
    async atWait(mesh, waiting) {
      if (waiting.verdict !== 'unrecreated-volume') return;
      say(
        `the container still mounts ${await mountedSource(node)}: mesh changed the spec but did not recreate it`,
      );
      const build = await mesh.build('forge');
      say(
        `a build of forge now recreates ${build.recreated.length} container(s): the runbook froze the roll-out policy`,
      );
    },
    async finale(mesh) {
      const root = (await mesh.nodeState(node)).hostRoot;
      const old = await stat(hostPathOnNode(root, input.from)).then(
        () => 'kept',
        () => 'removed',
      );
      say(
        `forge's container mounts ${await mountedSource(node)}; policy ${(await mesh.moduleSpec('forge')).upgradePolicy}; old data ${old}`,
      );
    },
  };
}
