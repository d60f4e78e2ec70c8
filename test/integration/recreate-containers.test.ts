import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createActivities, hostRootFromMesh } from '../../activities';
import { specHash } from '../../docker/container-options';
import { LABEL } from '../../docker/engine';
import { containerName, hostPathOnNode } from '../../docker/placement';
import type { ModuleSpec, ModuleSpecInput } from '../../mesh/schemas';
import { waitForApplyReport } from '../../mesh/wait-for-apply';
import { LocalWorld } from '../support/local-world';

const MODULE = 'forge';
/** PID 1 ignores SIGTERM unless it traps it; this one stops at once. */
const SLEEPER = ['sh', '-c', 'trap "exit 0" TERM; sleep 3600 & wait'];

function forgeModule(image: string): ModuleSpecInput {
  return {
    module: MODULE,
    upgradePolicy: 'roll-out',
    dataDirs: ['/srv/forge', '/srv/forge-cache'],
    containers: [
      {
        name: 'web',
        image,
        command: SLEEPER,
        mounts: [{ hostPath: '/srv/forge', containerPath: '/data' }],
      },
      // Its path shares a prefix with /srv/forge but is not under it: nothing here may touch it.
      {
        name: 'cache',
        image,
        command: SLEEPER,
        mounts: [{ hostPath: '/srv/forge-cache', containerPath: '/cache' }],
      },
    ],
  };
}

describe('recreating containers on a moved data path (incident 2 and its way out)', () => {
  let world: LocalWorld | undefined;
  let node = '';
  let hostRoot = '';
  let original: ModuleSpec;
  const w = () => {
    assert.ok(world, 'the local world was made');
    return world;
  };
  const act = () =>
    createActivities({ mesh: w().mesh, dockerFor: () => w().engine, hostRootOf: hostRootFromMesh(w().mesh) });
  const web = () => containerName(node, MODULE, 'web');
  const cache = () => containerName(node, MODULE, 'cache');
  const inspect = async (name: string) => {
    const info = await w().engine.inspect(name);
    assert.ok(info, `${name} exists`);
    return { id: info.Id, running: info.State.Running, sources: info.Mounts.map((m) => m.Source), info };
  };
  const pushAndWait = async () => {
    const receipt = await w().mesh.push(node);
    const report = await waitForApplyReport(w().mesh, node, receipt.pushId, {
      timeoutMs: 120_000,
      pollMs: 50,
    });
    return { receipt, report };
  };
  const target = (containers: string[]) => ({ node, module: MODULE, containers });

  before(async () => {
    world = await LocalWorld.create();
    node = world.nodeName();
    hostRoot = (await world.mesh.createNode(node, { adopted: false })).hostRoot;
    assert.ok(hostRoot.startsWith(world.stateDir), 'the node host root is in the scratch dir');
    await world.mesh.defineModule(forgeModule(world.imageName(MODULE)));
    await world.mesh.assign(MODULE, node);
    original = await act().readModuleSpec({ module: MODULE });
  });
  after(async () => {
    await world?.cleanup();
  });

  it('a push runs the forge on /srv/forge', async () => {
    const { receipt, report } = await pushAndWait();
    assert.equal(report.applied, receipt.sent);
    const running = await inspect(web());
    assert.equal(running.running, true);
    assert.deepEqual(running.sources, [hostPathOnNode(hostRoot, '/srv/forge')]);
    assert.deepEqual(await act().containersMounting({ node, module: MODULE, path: '/srv/forge' }), ['web']);
  });

  it('stops only the named containers; stopping twice is success', async () => {
    const docker = act();
    assert.deepEqual(await docker.stopContainers(target(['web'])), { stopped: [web()] });
    assert.deepEqual(await docker.stopContainers(target(['web', 'web'])), { stopped: [web()] });
    assert.equal((await inspect(web())).running, false);
    assert.equal((await inspect(cache())).running, true, 'the other container keeps running');
    assert.deepEqual(await docker.runningModuleContainers({ node, module: MODULE }), [cache()]);
    await assert.rejects(docker.stopContainers(target(['wbe'])), {
      type: 'InvalidInput',
      nonRetryable: true,
      message: /stopContainers: module forge has no container named wbe in its spec \(it has web, cache\)/,
    });
    await assert.rejects(docker.recreateContainers({ node, module: 'nope', containers: ['web'] }), {
      type: 'MeshRefused',
      nonRetryable: true,
    });
  });

  it('after the mount moves, a push starts the stopped container again on the OLD path, reporting success', async () => {
    const moved = await act().moveModuleMounts({ module: MODULE, from: '/srv/forge', to: '/var/lib/forge' });
    assert.deepEqual(moved.changed, ['web']);
    assert.deepEqual(moved.spec.dataDirs, ['/var/lib/forge', '/srv/forge-cache']);
    const stopped = await inspect(web());

    const { receipt, report } = await pushAndWait();
    assert.equal(report.applied, receipt.sent);
    assert.deepEqual(report.held, []);
    assert.deepEqual(report.failed, []);

    const restarted = await inspect(web());
    assert.equal(restarted.id, stopped.id, 'started as it was, not recreated');
    assert.equal(restarted.running, true);
    assert.equal(restarted.sources.length, 1);
    assert.ok(restarted.sources[0]?.endsWith('/srv/forge'), `still on the old path: ${restarted.sources[0]}`);
    assert.deepEqual(restarted.sources, [hostPathOnNode(hostRoot, '/srv/forge')]);
  });

  it('recreateContainers puts it on the new path; a second call leaves it alone', async () => {
    const docker = act();
    const before = await inspect(web());
    const cacheBefore = await inspect(cache());
    assert.deepEqual(await docker.recreateContainers(target(['web'])), { recreated: [web()] });

    const after = await inspect(web());
    assert.notEqual(after.id, before.id);
    assert.equal(after.running, true);
    assert.deepEqual(after.sources, [hostPathOnNode(hostRoot, '/var/lib/forge')]);
    const current = (await docker.readModuleSpec({ module: MODULE })).containers.find(
      (c) => c.name === 'web',
    );
    assert.ok(current);
    assert.deepEqual(after.info.Config.Labels, {
      [LABEL.node]: node,
      [LABEL.module]: MODULE,
      [LABEL.container]: 'web',
      [LABEL.specHash]: specHash(current),
    });
    assert.equal((await inspect(cache())).id, cacheBefore.id, 'a container not named is not touched');

    assert.deepEqual(await docker.recreateContainers(target(['web', 'cache'])), { recreated: [] });
    assert.equal((await inspect(web())).id, after.id, 'left alone');
    assert.equal((await inspect(cache())).id, cacheBefore.id, 'cache already matched its spec');

    const evidence = await docker.inspectModuleContainers({ node, module: MODULE, stabilityWindowMs: 0 });
    const webEvidence = evidence.find((e) => e.container === 'web');
    assert.deepEqual(webEvidence?.observed.exists && webEvidence.observed.mounts, webEvidence?.desiredMounts);
  });

  it('with the policy frozen to manual, a build rebuilds the image and recreates nothing', async () => {
    const docker = act();
    await docker.setUpgradePolicy({ module: MODULE, policy: 'manual' });
    assert.equal((await docker.readModuleSpec({ module: MODULE })).upgradePolicy, 'manual');
    const before = await inspect(web());

    const result = await w().mesh.build(MODULE);
    assert.equal(result.upgradePolicy, 'manual');
    assert.notEqual(result.images[0]?.imageId, result.images[0]?.previousId, 'a new build');
    assert.deepEqual(result.recreated, []);
    const after = await inspect(web());
    assert.equal(after.id, before.id);
    assert.equal(after.running, true);
    assert.deepEqual(after.sources, [hostPathOnNode(hostRoot, '/var/lib/forge')]);
  });

  it('starts named containers (twice is success), refuses to start one that is gone, recreates it', async () => {
    const docker = act();
    await docker.stopContainers(target(['web']));
    assert.deepEqual(await docker.startContainers(target(['web'])), { started: [web()] });
    assert.deepEqual(await docker.startContainers(target(['web'])), { started: [web()] });
    assert.equal((await inspect(web())).running, true);

    await w().engine.remove(web());
    await assert.rejects(docker.startContainers(target(['web', 'cache'])), {
      type: 'ContainersGone',
      nonRetryable: true,
      message: new RegExp(`Module forge has no container for web on node ${node} to start`),
    });
    assert.equal((await inspect(cache())).running, true);
    assert.deepEqual(await docker.recreateContainers(target(['web'])), { recreated: [web()] });
    const back = await inspect(web());
    assert.equal(back.running, true);
    assert.deepEqual(back.sources, [hostPathOnNode(hostRoot, '/var/lib/forge')]);
  });

  it('restoring the spec read before the move and recreating puts it back on the old path', async () => {
    const docker = act();
    await docker.restoreModuleSpec({ spec: original });
    assert.deepEqual(await docker.readModuleSpec({ module: MODULE }), original);
    assert.deepEqual(await docker.recreateContainers(target(['web', 'cache'])), { recreated: [web()] });
    assert.deepEqual((await inspect(web())).sources, [hostPathOnNode(hostRoot, '/srv/forge')]);
  });
});
