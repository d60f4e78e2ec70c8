import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { acquireLock, LocalMesh } from '../../mesh/local';
import { MeshUnreadableError } from '../../mesh/errors';
import { waitForApplyReport } from '../../mesh/wait-for-apply';
import { LocalWorld, threeContainerModule } from '../support/local-world';

const MODULE = 'route-proxy';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('local mesh: apply reports belong to exactly one push', () => {
  let world: LocalWorld;
  let node: string;

  before(async () => {
    world = await LocalWorld.create();
    node = world.nodeName();
    await world.mesh.createNode(node, { adopted: false });
    await world.mesh.defineModule(threeContainerModule(MODULE, world.imageName(MODULE)));
    await world.mesh.assign(MODULE, node);
  });
  after(() => world.cleanup());

  it('a reader waiting for push k is not satisfied by the report of push k-1', async () => {
    const previous = await world.mesh.push(node);
    await waitForApplyReport(world.mesh, node, previous.pushId, { timeoutMs: 120_000, pollMs: 50 });

    // Keep the node agent from applying push k until the test lets it.
    const release = await acquireLock(world.mesh.layout.nodeLock(node), { timeoutMs: 5_000 });
    let settled = false;
    const current = await world.mesh.push(node).catch(async (error: unknown) => {
      await release();
      throw error;
    });
    const waiting = waitForApplyReport(world.mesh, node, current.pushId, { timeoutMs: 120_000, pollMs: 50 });
    void waiting.finally(() => (settled = true)).catch(() => undefined);
    try {
      assert.notEqual(current.pushId, previous.pushId);
      await sleep(1_500);
      assert.equal(settled, false, 'the reader still waits');
      assert.equal(await world.mesh.applyReport(node, current.pushId), undefined);
      assert.equal((await world.mesh.applyReport(node, previous.pushId))?.pushId, previous.pushId);
      assert.equal((await world.mesh.nodeState(node)).lastApply?.pushId, previous.pushId);
    } finally {
      await release();
    }
    const report = await waiting;
    assert.equal(report.pushId, current.pushId);
    assert.equal((await world.mesh.nodeState(node)).lastApply?.pushId, current.pushId);
  });
});

describe('local mesh: malformed or truncated state files are unreadable, never empty', () => {
  let world: LocalWorld;
  let node: string;

  before(async () => {
    world = await LocalWorld.create();
    node = world.nodeName();
    await world.mesh.createNode(node, { adopted: true });
  });
  after(() => world.cleanup());

  async function rewrite(file: string, change: (text: string) => string): Promise<() => Promise<void>> {
    const original = await readFile(file, 'utf8');
    await writeFile(file, change(original));
    return () => writeFile(file, original);
  }

  async function assertUnreadable(read: () => Promise<unknown>, file: string, field: string): Promise<void> {
    await assert.rejects(read, (error: unknown) => {
      assert.ok(error instanceof MeshUnreadableError, `got ${String(error)}`);
      assert.equal(error.source, file);
      assert.equal(error.field, field);
      assert.ok(error.message.includes(file), error.message);
      if (field !== '') assert.ok(error.message.includes(`field "${field}"`), error.message);
      return true;
    });
  }

  it('rejects a truncated and a malformed controller.json, naming the file and the field', async () => {
    const file = world.mesh.layout.controllerFile;
    const fresh = () => new LocalMesh({ stateDir: world.stateDir }).nodeState(node);
    let restore = await rewrite(file, (text) => text.slice(0, text.length / 2));
    await assertUnreadable(fresh, file, '');
    await restore();
    restore = await rewrite(file, (text) => text.replace('"adopted": true', '"adopted": "yes"'));
    await assertUnreadable(fresh, file, `nodes.${node}.adopted`);
    await restore();
    assert.equal((await fresh()).adopted, true);
  });

  it('rejects a truncated and a malformed node state.json, naming the file and the field', async () => {
    const receipt = await world.mesh.push(node);
    await waitForApplyReport(world.mesh, node, receipt.pushId, { timeoutMs: 120_000, pollMs: 50 });
    const file = world.mesh.layout.nodeStateFile(node);
    let restore = await rewrite(file, (text) => text.slice(0, 40));
    await assertUnreadable(() => world.mesh.nodeState(node), file, '');
    await assertUnreadable(() => world.mesh.applyReport(node, receipt.pushId), file, '');
    await restore();
    restore = await rewrite(file, (text) => text.replace('"applied": 0', '"applied": -3'));
    await assertUnreadable(() => world.mesh.applyReport(node, receipt.pushId), file, 'reports.0.applied');
    await restore();
    restore = await rewrite(file, () => '');
    await assertUnreadable(() => world.mesh.nodeState(node), file, '');
    await restore();
    assert.equal((await world.mesh.applyReport(node, receipt.pushId))?.applied, 0);
  });
});
