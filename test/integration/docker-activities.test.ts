import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { hostRootFromMesh } from '../../activities';
import { createDockerActivities } from '../../activities/docker';
import { containerCreateOptions } from '../../docker/container-options';
import { BASE_IMAGE, DockerEngine, LABEL } from '../../docker/engine';
import { placementOn } from '../../docker/placement';
import { LocalMesh } from '../../mesh/local';
import type { ContainerSpec, ModuleSpecInput } from '../../mesh/schemas';
import type { ContainerEvidence } from '../../workflows/verdict/evidence';
import { Scratch } from '../support/scratch';

/** PID 1 ignores SIGTERM unless it traps it; this one stops at once. */
const SLEEPER = ['sh', '-c', 'trap "exit 0" TERM; sleep 600 & wait'];
const HEALTH = { intervalSeconds: 0.3, timeoutSeconds: 1, retries: 1 };

const moduleSpec: ModuleSpecInput = {
  module: 'web',
  containers: [
    {
      name: 'app',
      image: BASE_IMAGE,
      command: SLEEPER,
      mounts: [{ hostPath: '/srv/web', containerPath: '/data' }],
      healthcheck: { test: ['CMD-SHELL', 'test -f /data/ready'], ...HEALTH },
    },
    { name: 'sick', image: BASE_IMAGE, command: SLEEPER, healthcheck: { test: ['false'], ...HEALTH } },
    { name: 'quitter', image: BASE_IMAGE, command: ['sh', '-c', 'exit 3'] },
    { name: 'flapper', image: BASE_IMAGE, command: ['sh', '-c', 'exit 1'] },
    { name: 'ghost', image: BASE_IMAGE, command: SLEEPER },
  ],
};
const pairSpec: ModuleSpecInput = {
  module: 'pair',
  containers: ['one', 'two'].map((name) => ({ name, image: BASE_IMAGE, command: SLEEPER })),
};
const twinSpec: ModuleSpecInput = {
  module: 'twin',
  containers: [{ name: 'one', image: BASE_IMAGE, command: SLEEPER }],
};

describe('Docker activities against the real engine', () => {
  const scratch = new Scratch();
  const engine = new DockerEngine();
  const node = `t${randomBytes(4).toString('hex')}`;
  const activities = (mesh: LocalMesh) =>
    createDockerActivities({ mesh, dockerFor: () => engine, hostRootOf: hostRootFromMesh(mesh) });
  let mesh: LocalMesh;
  let hostRoot = '';

  const spec = async (module: string, name: string): Promise<ContainerSpec> => {
    const found = (await mesh.moduleSpec(module)).containers.find((c) => c.name === name);
    assert.ok(found, `${module}/${name} is in the spec`);
    return found;
  };
  const create = async (module: string, name: string) =>
    engine.createAndStart(await spec(module, name), placementOn(node, hostRoot, module, name));

  before(async () => {
    const dir = await scratch.dir('docker-activities-');
    mesh = new LocalMesh({ stateDir: join(dir, 'state'), engine, startAgent: () => undefined });
    hostRoot = join(dir, 'root');
    await mesh.createNode(node, { adopted: false, hostRoot });
    for (const s of [moduleSpec, pairSpec, twinSpec]) await mesh.defineModule(s);
    await mkdir(join(hostRoot, 'srv/web'), { recursive: true });
    await writeFile(join(hostRoot, 'srv/web/ready'), 'yes');
    for (const name of ['app', 'sick', 'quitter']) await create('web', name);
    // Mesh container specs have no restart policy: this one is made as mesh would label it, restarting always.
    const flapper = containerCreateOptions(
      await spec('web', 'flapper'),
      placementOn(node, hostRoot, 'web', 'flapper'),
    );
    flapper.HostConfig = { ...flapper.HostConfig, RestartPolicy: { Name: 'always' } };
    await (await engine.docker.createContainer(flapper)).start();
  });

  after(async () => {
    for (const c of await engine.listByLabels({ [LABEL.node]: node })) await engine.remove(c.Id);
    await scratch.cleanup();
  });

  async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 180_000): Promise<void> {
    for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await delay(200)) {
      if (await check()) return;
    }
    assert.fail(`timed out waiting until ${what}`);
  }
  const health = async (name: string) => (await engine.inspect(`${node}.web.${name}`))?.State.Health?.Status;
  const restarts = async (name: string) => (await engine.inspect(`${node}.web.${name}`))?.RestartCount ?? 0;

  it('reports what Docker says about each container of the spec, read twice', async () => {
    await waitFor('app is healthy', async () => (await health('app')) === 'healthy');
    await waitFor('sick is unhealthy', async () => (await health('sick')) === 'unhealthy');
    await waitFor('flapper has restarted', async () => (await restarts('flapper')) > 0);
    const evidence = await activities(mesh).inspectModuleContainers({
      node,
      module: 'web',
      stabilityWindowMs: 2500,
    });
    const by = new Map<string, ContainerEvidence>(evidence.map((e) => [e.container, e]));
    assert.deepEqual(
      evidence.map((e) => e.container),
      ['app', 'sick', 'quitter', 'flapper', 'ghost'],
    );

    const app = by.get('app');
    const appInfo = await engine.inspect(`${node}.web.app`);
    assert.deepEqual(app, {
      module: 'web',
      container: 'app',
      name: `${node}.web.app`,
      desiredMounts: [{ source: '/srv/web', destination: '/data' }],
      desiredImage: BASE_IMAGE,
      desiredSpecHash: app?.desiredSpecHash,
      observed: {
        exists: true,
        state: 'running',
        health: 'healthy',
        restartCount: 0,
        restartCountStable: true,
        mounts: [{ source: '/srv/web', destination: '/data' }],
        id: appInfo?.Id,
        startedAt: appInfo?.State.StartedAt,
        image: BASE_IMAGE,
        // The digest mesh labelled it with is the digest of the spec it runs: no drift.
        specHash: app?.desiredSpecHash,
      },
    });
    assert.match(app?.desiredSpecHash ?? '', /^[0-9a-f]{16}$/);
    const plain = ({
      id: _id,
      startedAt: _at,
      image: _image,
      specHash: _hash,
      ...rest
    }: Record<string, unknown>) => rest;
    assert.deepEqual(plain(by.get('sick')?.observed ?? {}), {
      exists: true,
      state: 'running',
      health: 'unhealthy',
      restartCount: 0,
      restartCountStable: true,
      mounts: [],
    });
    assert.deepEqual(plain(by.get('quitter')?.observed ?? {}), {
      exists: true,
      state: 'exited',
      health: 'none',
      restartCount: 0,
      restartCountStable: true,
      mounts: [],
    });
    const flapper = by.get('flapper')?.observed;
    assert.ok(flapper?.exists, 'flapper exists');
    assert.equal(
      flapper.restartCountStable,
      false,
      `restart count ${flapper.restartCount} rose during the window`,
    );
    assert.deepEqual(by.get('ghost'), {
      module: 'web',
      container: 'ghost',
      name: `web/ghost on ${node}`,
      desiredMounts: [],
      desiredImage: BASE_IMAGE,
      desiredSpecHash: by.get('ghost')?.desiredSpecHash,
      observed: { exists: false },
    });
  });

  it('stops a module (twice is success) and starts it again', async () => {
    const docker = activities(mesh);
    const names = [`${node}.pair.one`, `${node}.pair.two`];
    await create('pair', 'one');
    await create('pair', 'two');
    assert.deepEqual(await docker.runningModuleContainers({ node, module: 'pair' }), names);

    assert.deepEqual(await docker.stopModuleContainers({ node, module: 'pair' }), { stopped: names });
    assert.deepEqual(await docker.stopModuleContainers({ node, module: 'pair' }), { stopped: names });
    assert.deepEqual(await docker.runningModuleContainers({ node, module: 'pair' }), []);
    const stopped = await docker.inspectModuleContainers({ node, module: 'pair', stabilityWindowMs: 0 });
    assert.deepEqual(
      stopped.map((e) => e.observed.exists && e.observed.state),
      ['exited', 'exited'],
    );

    assert.deepEqual(await docker.startModuleContainers({ node, module: 'pair' }), { started: names });
    assert.deepEqual(await docker.startModuleContainers({ node, module: 'pair' }), { started: names });
    assert.deepEqual(await docker.runningModuleContainers({ node, module: 'pair' }), names);
  });

  it('heartbeats through the stability window and stops waiting when the activity is cancelled', async () => {
    const env = new MockActivityEnvironment();
    const beats: unknown[] = [];
    env.on('heartbeat', (details: unknown) => {
      beats.push(details);
      env.cancel();
    });
    const started = Date.now();
    const { inspectModuleContainers } = activities(mesh);
    await assert.rejects(
      env.run(inspectModuleContainers, { node, module: 'pair', stabilityWindowMs: 60_000 }),
      CancelledFailure,
    );
    assert.ok(Date.now() - started < 10_000, 'the cancelled window did not run its course');
    assert.deepEqual(beats, [{ node, module: 'pair', step: 'restart-count stability window' }]);
  });

  it('refuses to start a module that has no container on the node', async () => {
    const docker = activities(mesh);
    assert.deepEqual(await docker.stopModuleContainers({ node, module: 'twin' }), { stopped: [] });
    await assert.rejects(docker.startModuleContainers({ node, module: 'twin' }), {
      type: 'ContainersGone',
      nonRetryable: true,
      message: new RegExp(`Module twin has no container on node ${node} to start`),
    });
  });

  it('refuses to pick between two containers labelled as the same module container', async () => {
    const placement = placementOn(node, hostRoot, 'twin', 'one');
    const one = await spec('twin', 'one');
    await engine.createAndStart(one, placement);
    await engine.createAndStart(one, { ...placement, name: `${placement.name}.copy` });
    await assert.rejects(
      activities(mesh).inspectModuleContainers({ node, module: 'twin', stabilityWindowMs: 0 }),
      {
        type: 'AmbiguousContainers',
        message: new RegExp(`2 containers on node ${node} are labelled as twin/one`),
      },
    );
  });
});
