import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { UnsafeMeshArgumentError } from '../../mesh/command/argv';
import { ModuleSpec } from '../../mesh/schemas';
import { FIRST_PUSH, PUSH_AFTER_TAKE, standInMesh } from '../fixtures/fake-mesh/stand-in';
import { Scratch } from '../support/scratch';

describe("command adapter against a recorded stand-in for the operator's mesh controller (the real one cannot run here)", () => {
  const scratch = new Scratch();
  let stand: ReturnType<typeof standInMesh>;
  let canary = '';

  before(async () => {
    const dir = await scratch.dir('command-mesh-');
    canary = join(dir, 'a shell ran');
    stand = standInMesh(dir);
  });
  after(() => scratch.cleanup());

  it('sends each verb to the stand-in as exactly the configured argument array', async () => {
    const { mesh, received } = stand;
    const earlier = (await received()).length;
    const spec = await mesh.moduleSpec('route-proxy');
    await mesh.assign('route-proxy', 'novox');
    await mesh.unassign('route-proxy', 'novox');
    await mesh.take('route-proxy', 'novox');
    await mesh.push('novox');
    await mesh.applyReport('novox', FIRST_PUSH);
    await mesh.nodeState('novox');
    await mesh.setUpgradePolicy('forge', 'manual');
    await mesh.setModuleSpec(spec);
    const calls = (await received()).slice(earlier);
    const specFile = calls[8]?.argv[2] ?? '(missing)';
    assert.deepEqual(
      calls.map((call) => call.argv),
      [
        ['module', 'show', 'route-proxy', '--json'],
        ['assign', 'route-proxy', 'novox', '--json'],
        ['unassign', 'route-proxy', 'novox', '--json'],
        ['take', 'route-proxy', 'novox', '--json'],
        ['push', 'novox', '--json'],
        ['node', 'apply-report', 'novox', '--push', FIRST_PUSH, '--json'],
        ['node', 'show', 'novox', '--json'],
        ['module', 'set-policy', 'forge', 'manual'],
        ['module', 'define', specFile],
      ],
    );
    assert.ok(specFile.startsWith(tmpdir()) && specFile.endsWith('route-proxy.json'), specFile);
    assert.deepEqual(ModuleSpec.parse(JSON.parse(calls[8]?.files[specFile] ?? 'null')), spec);
    assert.equal(existsSync(specFile), false, 'the temporary spec file is removed afterwards');
  });

  it('passes spaces, quotes, `;` and `$()` to the stand-in as single untouched arguments (no shell)', async () => {
    const { mesh, received } = stand;
    const earlier = (await received()).length;
    const module = `route proxy"; touch '${canary}'; $(touch "${canary}")`;
    const node = `novox && touch ${canary} \`touch ${canary}\``;
    const pushId = `p-1 | touch ${canary} > x`;
    await mesh.assign(module, node);
    assert.equal(await mesh.applyReport('novox', pushId), undefined);
    assert.deepEqual(
      (await received()).slice(earlier).map((call) => call.argv),
      [
        ['assign', module, node, '--json'],
        ['node', 'apply-report', 'novox', '--push', pushId, '--json'],
      ],
    );
    assert.equal(existsSync(canary), false, 'nothing was interpreted by a shell');
  });

  it('refuses a value that would read as an option before the stand-in runs', async () => {
    const earlier = (await stand.received()).length;
    await assert.rejects(stand.mesh.take('--all', 'novox'), UnsafeMeshArgumentError);
    assert.equal((await stand.received()).length, earlier);
  });

  it("parses the stand-in's recorded novox push: sent 346", async () => {
    const receipt = await stand.mesh.push('novox');
    assert.equal(receipt.pushId, FIRST_PUSH);
    assert.equal(receipt.sent, 346);
    assert.equal(receipt.resourceIds.length, 346);
    assert.ok(receipt.resourceIds.includes('route-proxy/container:route-proxy-edge'));
  });

  it("parses the stand-in's recorded apply report: applied 330, 16 held for route-proxy with the node's reasons", async () => {
    const report = await stand.mesh.applyReport('novox', FIRST_PUSH);
    assert.ok(report);
    assert.equal(report.applied, 330);
    assert.equal(report.held.length, 16);
    assert.ok(report.held.every((hold) => hold.module === 'route-proxy'));
    const edge = report.held.find((hold) => hold.resource === 'route-proxy/container:route-proxy-edge');
    assert.equal(
      edge?.reason,
      'would mount /var/lib/route-proxy/ca, found on this adopted node; not run until route-proxy is taken',
    );
  });

  it("parses the stand-in's node state and module spec", async () => {
    const state = await stand.mesh.nodeState('novox');
    assert.equal(state.adopted, true);
    assert.ok(state.assigned.includes('route-proxy') && !state.taken.includes('route-proxy'));
    assert.equal(state.holds.length, 16);
    assert.equal(state.lastApply?.pushId, FIRST_PUSH);
    const spec = await stand.mesh.moduleSpec('route-proxy');
    assert.equal(spec.containers.length, 3);
    assert.ok(spec.containers[0]?.mounts.some((mount) => mount.hostPath === '/var/lib/route-proxy/ca'));
  });

  it('reads "not applied yet" from the stand-in as undefined: JSON null, or a report of an older push', async () => {
    assert.equal(await stand.mesh.applyReport('helix', 'p-1'), undefined);
    assert.equal(await stand.mesh.applyReport('novox', PUSH_AFTER_TAKE), undefined);
  });
});
