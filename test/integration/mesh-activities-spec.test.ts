import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createMeshActivities } from '../../activities/mesh';
import {
  containersMountingPath,
  isAtOrUnder,
  movedPath,
  moveMounts,
  moveProblem,
} from '../../activities/mesh/module-mounts';
import { LocalMesh } from '../../mesh/local';
import { ModuleSpec, type ModuleSpecInput } from '../../mesh/schemas';
import { Scratch } from '../support/scratch';

/** Pure helpers first (no Docker, no mesh state); the activities over a file-backed local mesh after. */

const forge: ModuleSpecInput = {
  module: 'forge',
  upgradePolicy: 'roll-out',
  dataDirs: ['/srv/forge', '/srv/forge-cache', '/etc/forge'],
  containers: [
    {
      name: 'web',
      image: 'mesh-local/forge:latest',
      mounts: [
        { hostPath: '/srv/forge', containerPath: '/data' },
        { hostPath: '/etc/forge', containerPath: '/config', readOnly: true },
      ],
    },
    {
      name: 'indexer',
      image: 'mesh-local/forge:latest',
      mounts: [{ hostPath: '/srv/forge/repos/', containerPath: '/repos' }],
    },
    {
      name: 'cache',
      image: 'mesh-local/forge:latest',
      mounts: [{ hostPath: '/srv/forge-cache', containerPath: '/cache' }],
    },
    { name: 'bare', image: 'mesh-local/forge:latest' },
  ],
};
const spec = ModuleSpec.parse(forge);

describe('module mount paths (pure)', () => {
  it('a path is at or under a dir only along path segments', () => {
    assert.equal(isAtOrUnder('/srv/forge', '/srv/forge'), true);
    assert.equal(isAtOrUnder('/srv/forge/', '/srv/forge'), true);
    assert.equal(isAtOrUnder('/srv/forge/repos', '/srv/forge/'), true);
    assert.equal(isAtOrUnder('//srv//forge/./repos', '/srv/forge'), true);
    assert.equal(isAtOrUnder('/srv/forge-cache', '/srv/forge'), false);
    assert.equal(isAtOrUnder('/srv', '/srv/forge'), false);
    assert.equal(isAtOrUnder('/anything', '/'), true);
  });

  it('moves a path keeping its sub-path, and leaves others alone', () => {
    assert.equal(movedPath('/srv/forge', '/srv/forge', '/var/lib/forge'), '/var/lib/forge');
    assert.equal(movedPath('/srv/forge/', '/srv/forge', '/var/lib/forge/'), '/var/lib/forge');
    assert.equal(movedPath('/srv/forge/repos/a', '/srv/forge/', '/var/lib/forge'), '/var/lib/forge/repos/a');
    assert.equal(movedPath('/srv/forge-cache', '/srv/forge', '/var/lib/forge'), undefined);
    assert.equal(movedPath('/etc/forge', '/srv/forge', '/var/lib/forge'), undefined);
  });

  it('refuses moves that are no path rewrite', () => {
    assert.equal(moveProblem('/srv/forge', '/var/lib/forge'), undefined);
    assert.equal(moveProblem('/srv/forge', '/srv/forge-new'), undefined);
    assert.match(moveProblem('srv/forge', '/var/lib/forge') ?? '', /from must be an absolute path/);
    assert.match(moveProblem('/srv/forge', 'var') ?? '', /to must be an absolute path/);
    assert.match(moveProblem('/srv/../forge', '/var') ?? '', /from must not contain \.\./);
    for (const [from, to] of [
      ['/srv/forge', '/srv/forge'],
      ['/srv/forge', '/srv/forge/'],
      ['/srv/forge', '/srv/forge/new'],
      ['/srv/forge/old', '/srv/forge'],
      ['/', '/var/lib/forge'],
    ] as const) {
      assert.match(
        moveProblem(from, to) ?? '',
        /must be distinct and neither inside the other/,
        `${from} → ${to}`,
      );
    }
  });

  it('moves every mount and data dir at or under from, names the containers that changed', () => {
    const { spec: moved, changed } = moveMounts(spec, '/srv/forge', '/var/lib/forge');
    assert.deepEqual(changed, ['web', 'indexer']);
    assert.deepEqual(moved.dataDirs, ['/var/lib/forge', '/srv/forge-cache', '/etc/forge']);
    assert.deepEqual(
      moved.containers.map((c) => c.mounts),
      [
        [
          { hostPath: '/var/lib/forge', containerPath: '/data', readOnly: false },
          { hostPath: '/etc/forge', containerPath: '/config', readOnly: true },
        ],
        [{ hostPath: '/var/lib/forge/repos', containerPath: '/repos', readOnly: false }],
        [{ hostPath: '/srv/forge-cache', containerPath: '/cache', readOnly: false }],
        [],
      ],
    );
    assert.equal(moved.upgradePolicy, 'roll-out');
    assert.deepEqual(ModuleSpec.parse(moved), moved, 'still a valid spec');
    assert.deepEqual(spec, ModuleSpec.parse(forge), 'the input spec is not mutated');
  });

  it('is idempotent: the moved spec moves to itself', () => {
    const once = moveMounts(spec, '/srv/forge', '/var/lib/forge');
    const twice = moveMounts(once.spec, '/srv/forge', '/var/lib/forge');
    assert.deepEqual(twice, { spec: once.spec, changed: [] });
  });

  it('drops a data dir the move makes a duplicate', () => {
    const both = ModuleSpec.parse({ ...forge, dataDirs: ['/srv/forge', '/var/lib/forge'] });
    assert.deepEqual(moveMounts(both, '/srv/forge', '/var/lib/forge').spec.dataDirs, ['/var/lib/forge']);
  });

  it('names the containers mounting a path or below it, in spec order', () => {
    assert.deepEqual(containersMountingPath(spec, '/srv/forge'), ['web', 'indexer']);
    assert.deepEqual(containersMountingPath(spec, '/srv/forge/repos'), ['indexer']);
    assert.deepEqual(containersMountingPath(spec, '/srv/forge-cache/'), ['cache']);
    assert.deepEqual(containersMountingPath(spec, '/var/lib/forge'), []);
    // A parent mount sees the path too, but it is not at or under it: it is not named.
    assert.deepEqual(containersMountingPath(spec, '/srv/forge/repos/a'), []);
  });
});

describe('mesh spec activities over a local mesh', () => {
  const scratch = new Scratch();
  let mesh: LocalMesh;
  const node = 'n1';
  const activities = () => createMeshActivities({ mesh });

  before(async () => {
    const dir = await scratch.dir('mesh-activities-spec-');
    mesh = new LocalMesh({ stateDir: join(dir, 'state'), startAgent: () => undefined });
    await mesh.createNode(node, { adopted: false, hostRoot: join(dir, 'root') });
    await mesh.defineModule(forge);
  });
  after(() => scratch.cleanup());

  it('reads the spec and sets the upgrade policy', async () => {
    const act = activities();
    assert.deepEqual(await act.readModuleSpec({ module: 'forge' }), spec);
    await act.setUpgradePolicy({ module: 'forge', policy: 'manual' });
    await act.setUpgradePolicy({ module: 'forge', policy: 'manual' });
    assert.equal((await act.readModuleSpec({ module: 'forge' })).upgradePolicy, 'manual');
    await act.setUpgradePolicy({ module: 'forge', policy: 'roll-out' });
    assert.equal((await mesh.moduleSpec('forge')).upgradePolicy, 'roll-out');
  });

  it('moves the mounts in the stored spec once, then restores the spec it read before', async () => {
    const act = activities();
    const original = await act.readModuleSpec({ module: 'forge' });
    assert.deepEqual(await act.containersMounting({ node, module: 'forge', path: '/srv/forge' }), [
      'web',
      'indexer',
    ]);

    const first = await act.moveModuleMounts({ module: 'forge', from: '/srv/forge', to: '/var/lib/forge' });
    assert.deepEqual(first.changed, ['web', 'indexer']);
    assert.deepEqual(await mesh.moduleSpec('forge'), first.spec, 'written');
    assert.deepEqual(await act.containersMounting({ node, module: 'forge', path: '/srv/forge' }), []);
    assert.deepEqual(await act.containersMounting({ node, module: 'forge', path: '/var/lib/forge' }), [
      'web',
      'indexer',
    ]);

    const second = await act.moveModuleMounts({ module: 'forge', from: '/srv/forge', to: '/var/lib/forge' });
    assert.deepEqual(second, { spec: first.spec, changed: [] });
    assert.deepEqual(await mesh.moduleSpec('forge'), first.spec);

    await act.restoreModuleSpec({ spec: original });
    await act.restoreModuleSpec({ spec: original });
    assert.deepEqual(await mesh.moduleSpec('forge'), original);
  });

  it('refuses bad input and unknown modules without retrying, and changes nothing', async () => {
    const act = activities();
    const before = await mesh.moduleSpec('forge');
    await assert.rejects(
      act.moveModuleMounts({ module: 'forge', from: '/srv/forge', to: '/srv/forge/new' }),
      {
        type: 'InvalidInput',
        nonRetryable: true,
        message: /moveModuleMounts: from \(\/srv\/forge\) and to \(\/srv\/forge\/new\) must be distinct/,
      },
    );
    await assert.rejects(act.moveModuleMounts({ module: 'forge', from: 'srv', to: '/x' }), {
      type: 'InvalidInput',
      message: /moveModuleMounts: from: must be an absolute path/,
    });
    await assert.rejects(act.setUpgradePolicy({ module: 'forge', policy: 'yolo' as 'manual' }), {
      type: 'InvalidInput',
      message: /setUpgradePolicy: policy:/,
    });
    await assert.rejects(act.restoreModuleSpec({ spec: { ...before, containers: [] } }), {
      type: 'InvalidInput',
      message: /restoreModuleSpec: spec\.containers:/,
    });
    await assert.rejects(act.containersMounting({ node, module: 'nope', path: '/srv' }), {
      type: 'MeshRefused',
      nonRetryable: true,
    });
    await assert.rejects(act.readModuleSpec({ module: 'nope' }), { type: 'MeshRefused' });
    assert.deepEqual(await mesh.moduleSpec('forge'), before);
  });
});
