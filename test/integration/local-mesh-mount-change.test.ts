import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LABEL } from '../../docker/engine';
import { containerName, hostPathOnNode } from '../../docker/placement';
import type { ModuleSpecInput } from '../../mesh/schemas';
import { waitForApplyReport } from '../../mesh/wait-for-apply';
import { LocalWorld } from '../support/local-world';

const MODULE = 'forge';

function forgeModule(image: string, dataPath: string): ModuleSpecInput {
  return {
    module: MODULE,
    upgradePolicy: 'manual',
    dataDirs: [dataPath],
    containers: [
      {
        name: 'web',
        image,
        command: ['sleep', '3600'],
        mounts: [{ hostPath: dataPath, containerPath: '/data' }],
      },
    ],
  };
}

describe('local mesh: a changed mount path neither recreates a running container nor warns (incident 2)', () => {
  let world: LocalWorld;
  let node: string;
  let hostRoot: string;
  let image: string;
  const name = () => containerName(node, MODULE, 'web');
  const inspectWeb = async () => {
    const info = await world.engine.inspect(name());
    assert.ok(info, `${name()} exists`);
    return { id: info.Id, running: info.State.Running, sources: info.Mounts.map((m) => m.Source), info };
  };

  before(async () => {
    world = await LocalWorld.create();
    node = world.nodeName();
    image = world.imageName(MODULE);
    hostRoot = (await world.mesh.createNode(node, { adopted: false })).hostRoot;
    await world.mesh.defineModule(forgeModule(image, '/srv/forge'));
    await world.mesh.assign(MODULE, node);
    const receipt = await world.mesh.push(node);
    await waitForApplyReport(world.mesh, node, receipt.pushId, { timeoutMs: 120_000, pollMs: 50 });
  });
  after(() => world.cleanup());

  it('a push with the new path reports everything applied while the container keeps the old path', async () => {
    const before = await inspectWeb();
    assert.deepEqual(before.sources, [hostPathOnNode(hostRoot, '/srv/forge')]);

    await world.mesh.defineModule(forgeModule(image, '/var/lib/forge'));
    const receipt = await world.mesh.push(node);
    const report = await waitForApplyReport(world.mesh, node, receipt.pushId, {
      timeoutMs: 120_000,
      pollMs: 50,
    });
    assert.equal(report.applied, receipt.sent);
    assert.deepEqual(report.held, []);
    assert.deepEqual(report.failed, []);

    const afterPush = await inspectWeb();
    assert.equal(afterPush.id, before.id, 'not recreated');
    assert.equal(afterPush.running, true);
    assert.deepEqual(afterPush.sources, [hostPathOnNode(hostRoot, '/srv/forge')]);
  });

  it('a build under the manual policy rebuilds the image and recreates nothing', async () => {
    const before = await inspectWeb();
    const result = await world.mesh.build(MODULE);
    assert.equal(result.images.length, 1);
    assert.notEqual(result.images[0]?.imageId, result.images[0]?.previousId);
    assert.equal((await world.engine.inspectImage(image))?.Id, result.images[0]?.imageId);
    assert.deepEqual(result.recreated, []);
    const afterBuild = await inspectWeb();
    assert.equal(afterBuild.id, before.id);
    assert.deepEqual(afterBuild.sources, [hostPathOnNode(hostRoot, '/srv/forge')]);
  });

  it('a build under roll-out recreates the container with the current spec: on the new path', async () => {
    const before = await inspectWeb();
    await world.mesh.setUpgradePolicy(MODULE, 'roll-out');
    const result = await world.mesh.build(MODULE);
    assert.deepEqual(result.recreated, [{ node, container: 'web', name: name() }]);
    assert.deepEqual(result.failed, []);
    const rolled = await inspectWeb();
    assert.notEqual(rolled.id, before.id);
    assert.equal(rolled.running, true);
    assert.deepEqual(rolled.sources, [hostPathOnNode(hostRoot, '/var/lib/forge')]);
    assert.equal(rolled.info.Image, result.images[0]?.imageId);
    assert.notEqual(rolled.info.Config.Labels[LABEL.specHash], before.info.Config.Labels[LABEL.specHash]);
  });
});
