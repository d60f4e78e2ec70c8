import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { LABEL } from '../../docker/engine';
import { containerName, hostPathOnNode } from '../../docker/placement';
import { containerResourceId, dirResourceId, type ApplyReport } from '../../mesh/schemas';
import { waitForApplyReport } from '../../mesh/wait-for-apply';
import { LocalWorld, threeContainerModule } from '../support/local-world';

const MODULE = 'route-proxy';
const DIRS = ['ca', 'certs', 'logs'].map((d) => `/var/lib/${MODULE}/${d}`);
const CONTAINERS = ['edge', 'acme', 'logs'];

async function pushAndWait(world: LocalWorld, node: string): Promise<{ sent: number; report: ApplyReport }> {
  const receipt = await world.mesh.push(node);
  const report = await waitForApplyReport(world.mesh, node, receipt.pushId, {
    timeoutMs: 120_000,
    pollMs: 50,
  });
  assert.equal(report.pushId, receipt.pushId);
  return { sent: receipt.sent, report };
}

async function nodeContainerNames(world: LocalWorld, node: string): Promise<string[]> {
  const found = await world.engine.listByLabels({ [LABEL.node]: node });
  return found.map((c) => c.Labels[LABEL.container] ?? '?').sort();
}

describe('local mesh: an adopted node holds data it finds until the module is taken (incident 1)', () => {
  let world: LocalWorld;
  let node: string;
  let hostRoot: string;

  before(async () => {
    world = await LocalWorld.create();
    node = world.nodeName();
    hostRoot = (await world.mesh.createNode(node, { adopted: true })).hostRoot;
    // A rolled-back earlier attempt left the module's data on disk; one more dir is new.
    for (const dir of DIRS) await mkdir(hostPathOnNode(hostRoot, dir), { recursive: true });
    await writeFile(hostPathOnNode(hostRoot, `${DIRS[0]}/left-behind.pem`), 'old');
    const spec = threeContainerModule(MODULE, world.imageName(MODULE));
    await world.mesh.defineModule({
      ...spec,
      dataDirs: [...(spec.dataDirs ?? []), `/var/lib/${MODULE}/cache`],
    });
    await world.mesh.assign(MODULE, node);
  });
  after(() => world.cleanup());

  it('sends every resource, applies only what is not held, names each hold, and runs no container', async () => {
    const { sent, report } = await pushAndWait(world, node);
    assert.equal(sent, 7);
    const heldIds = [
      ...DIRS.map((d) => dirResourceId(MODULE, d)),
      ...CONTAINERS.map((c) => containerResourceId(MODULE, c)),
    ];
    assert.deepEqual(report.held.map((h) => h.resource).sort(), heldIds.sort());
    assert.equal(report.applied, sent - report.held.length);
    assert.deepEqual(report.appliedIds, [dirResourceId(MODULE, `/var/lib/${MODULE}/cache`)]);
    assert.deepEqual(report.failed, []);
    const reasons = new Map(report.held.map((h) => [h.resource, h.reason]));
    assert.equal(
      reasons.get(dirResourceId(MODULE, DIRS[0]!)),
      `found /var/lib/${MODULE}/ca on this adopted node; not touched until ${MODULE} is taken`,
    );
    assert.equal(
      reasons.get(containerResourceId(MODULE, 'edge')),
      `would mount /var/lib/${MODULE}/ca, found on this adopted node; not run until ${MODULE} is taken`,
    );
    assert.deepEqual(await nodeContainerNames(world, node), []);
    assert.equal(await world.engine.inspect(containerName(node, MODULE, 'edge')), undefined);

    const state = await world.mesh.nodeState(node);
    assert.deepEqual(state.holds, report.held);
    assert.equal(state.lastApply?.pushId, report.pushId);
    const journal = await readFile(world.mesh.layout.journal(node), 'utf8');
    assert.match(journal, new RegExp(`${report.pushId} applied 1 resource\\(s\\)`));
  });

  it('after take, the next push applies everything and the containers run on the data found', async () => {
    await world.mesh.take(MODULE, node);
    const { sent, report } = await pushAndWait(world, node);
    assert.equal(report.applied, sent);
    assert.deepEqual(report.held, []);
    assert.deepEqual(report.failed, []);
    assert.deepEqual((await world.mesh.nodeState(node)).holds, []);
    for (const [i, name] of CONTAINERS.entries()) {
      const info = await world.engine.inspect(containerName(node, MODULE, name));
      assert.equal(info?.State.Running, true, `${name} runs`);
      assert.equal(info?.Config.Labels[LABEL.module], MODULE);
      assert.deepEqual(
        info?.Mounts.map((m) => m.Source),
        [hostPathOnNode(hostRoot, DIRS[i]!)],
      );
    }
    assert.equal(await readFile(hostPathOnNode(hostRoot, `${DIRS[0]}/left-behind.pem`), 'utf8'), 'old');
  });

  it('unassign then push removes the module containers and keeps its data', async () => {
    await world.mesh.unassign(MODULE, node);
    const { sent, report } = await pushAndWait(world, node);
    assert.equal(sent, 0);
    assert.deepEqual(report.failed, []);
    assert.deepEqual(await nodeContainerNames(world, node), []);
    assert.equal(await readFile(hostPathOnNode(hostRoot, `${DIRS[0]}/left-behind.pem`), 'utf8'), 'old');
    assert.deepEqual((await world.mesh.nodeState(node)).taken, []);
  });
});

describe('local mesh: nodes sharing one engine', () => {
  let world: LocalWorld;
  let [first, second] = ['', ''];

  before(async () => {
    world = await LocalWorld.create();
    [first, second] = [world.nodeName(), world.nodeName()];
    await world.mesh.defineModule(threeContainerModule(MODULE, world.imageName(MODULE)));
    for (const node of [first, second]) {
      await world.mesh.createNode(node, { adopted: false });
      await world.mesh.assign(MODULE, node);
    }
  });
  after(() => world.cleanup());

  it('never touch each other’s containers', async () => {
    await Promise.all([pushAndWait(world, first), pushAndWait(world, second)]);
    assert.deepEqual(await nodeContainerNames(world, first), [...CONTAINERS].sort());
    assert.deepEqual(await nodeContainerNames(world, second), [...CONTAINERS].sort());
    const secondIds = async () =>
      (await world.engine.listByLabels({ [LABEL.node]: second })).map((c) => c.Id).sort();
    const before = await secondIds();

    await world.mesh.unassign(MODULE, first);
    await pushAndWait(world, first);
    assert.deepEqual(await nodeContainerNames(world, first), []);
    assert.deepEqual(await secondIds(), before);
    for (const name of CONTAINERS) {
      assert.equal((await world.engine.inspect(containerName(second, MODULE, name)))?.State.Running, true);
    }
  });
});
