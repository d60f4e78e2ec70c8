import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { createMeshActivities } from '../../activities/mesh';
import { MeshUnreadableError } from '../../mesh/errors';
import { LocalMesh } from '../../mesh/local';
import { BASE_IMAGE } from '../../docker/engine';
import { standInMesh } from '../fixtures/fake-mesh/stand-in';
import { Scratch } from '../support/scratch';

describe('which nodes a module is assigned to (a spec change reaches all of them)', () => {
  const scratch = new Scratch();
  after(() => scratch.cleanup());

  describe('local mesh', () => {
    let mesh: LocalMesh;
    before(async () => {
      const dir = await scratch.dir('module-nodes-');
      mesh = new LocalMesh({ stateDir: join(dir, 'state'), startAgent: () => undefined });
      for (const node of ['forge2', 'forge1', 'edge'])
        await mesh.createNode(node, { adopted: false, hostRoot: join(dir, node) });
      for (const module of ['forge', 'lonely'])
        await mesh.defineModule({ module, containers: [{ name: 'web', image: BASE_IMAGE }] });
      await mesh.assign('forge', 'forge2');
      await mesh.assign('forge', 'forge1');
    });

    it('names every node the module is assigned to, sorted, through the activity', async () => {
      const { moduleNodes } = createMeshActivities({ mesh });
      assert.deepEqual(await moduleNodes({ module: 'forge' }), ['forge1', 'forge2']);
      assert.deepEqual(await moduleNodes({ module: 'lonely' }), []);
      await mesh.unassign('forge', 'forge2');
      assert.deepEqual(await moduleNodes({ module: 'forge' }), ['forge1']);
    });

    it('refuses an unknown module for good, and a malformed name as invalid input', async () => {
      const { moduleNodes } = createMeshActivities({ mesh });
      await assert.rejects(moduleNodes({ module: 'ghost' }), (error: unknown) => {
        assert.ok(error instanceof ApplicationFailure);
        assert.deepEqual([error.type, error.nonRetryable], ['MeshRefused', true]);
        assert.match(error.message, /no module "ghost"/);
        return true;
      });
      await assert.rejects(moduleNodes({ module: 'Forge\n' }), (error: unknown) => {
        assert.ok(error instanceof ApplicationFailure);
        assert.deepEqual([error.type, error.nonRetryable], ['InvalidInput', true]);
        return true;
      });
    });
  });

  describe("command adapter against a recorded stand-in for the operator's mesh controller (the real one cannot run here)", () => {
    let stand: ReturnType<typeof standInMesh>;
    before(async () => {
      stand = standInMesh(await scratch.dir('module-nodes-command-'));
    });

    it("sends `module nodes <module> --json` and reads the stand-in's recorded two nodes, sorted", async () => {
      const earlier = (await stand.received()).length;
      assert.deepEqual(await stand.mesh.moduleNodes('forge'), ['forge1', 'forge2']);
      assert.deepEqual(await stand.mesh.moduleNodes('route-proxy'), ['novox']);
      assert.deepEqual(
        (await stand.received()).slice(earlier).map((call) => call.argv),
        [
          ['module', 'nodes', 'forge', '--json'],
          ['module', 'nodes', 'route-proxy', '--json'],
        ],
      );
    });

    it("refuses the stand-in's answer with a field it does not know, naming the field", async () => {
      await assert.rejects(stand.mesh.moduleNodes('photos'), (error: unknown) => {
        assert.ok(error instanceof MeshUnreadableError);
        assert.equal(error.field, 'replicas');
        return true;
      });
    });

    it("refuses the stand-in's answer about another module", async () => {
      await assert.rejects(stand.mesh.moduleNodes('mailu'), (error: unknown) => {
        assert.ok(error instanceof MeshUnreadableError);
        assert.match(error.message, /field "module" is "forge", expected "mailu"/);
        return true;
      });
    });
  });
});
