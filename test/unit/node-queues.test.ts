import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { fixedHostRoot } from '../../activities';
import { createDataActivities } from '../../activities/data';
import { createDockerActivities } from '../../activities/docker';
import { createMeshActivities } from '../../activities/mesh';
import { createProbeActivities } from '../../activities/probes';
import { createRunbookActivities } from '../../activities/runbook';
import { nodeQueuesFor } from '../../cli/runbook/worker/node-queues';
import { UsageError } from '../../cli/errors';
import { DockerEngine } from '../../docker/engine';
import { LocalMesh } from '../../mesh/local';
import { isNodeLocalActivity, nodeTaskQueue } from '../../workflows/contracts';
import { Scratch } from '../support/scratch';

describe('which work runs on a node, and which node queues a worker serves', () => {
  const scratch = new Scratch();
  after(() => scratch.cleanup());

  it('every data and Docker activity runs on its node; mesh, probe, policy and run activities do not', async () => {
    const stateDir = await scratch.dir('mesh-node-queues-');
    const mesh = new LocalMesh({ stateDir });
    const deps = { mesh, dockerFor: () => new DockerEngine(), hostRootOf: fixedHostRoot('/'), stateDir };
    const onNode = [...Object.keys(createDataActivities(deps)), ...Object.keys(createDockerActivities(deps))];
    const shared = [
      ...Object.keys(createMeshActivities(deps)),
      ...Object.keys(createProbeActivities()),
      ...Object.keys(createRunbookActivities({})),
    ];
    assert.deepEqual(
      onNode.filter((name) => !isNodeLocalActivity(name)),
      [],
      'a data or Docker activity missing from NODE_LOCAL_ACTIVITIES',
    );
    assert.deepEqual(shared.filter(isNodeLocalActivity), [], 'a shared activity listed as node-local');
    assert.ok(shared.includes('containersMounting'), 'reads the spec through mesh: shared');
  });

  it("a node's queue is the runbook queue and the node", () => {
    assert.equal(nodeTaskQueue('mesh-runbook', 'novox'), 'mesh-runbook@novox');
  });

  it('--node on a real mesh: host root / unless --host-root says otherwise', async () => {
    const command = { adapter: 'command' as const, command: '/etc/mesh/command.json' };
    assert.deepEqual(await nodeQueuesFor(command, { nodes: ['forge1'], nodesOnly: false }), {
      nodes: [{ node: 'forge1', hostRoot: '/' }],
    });
    assert.deepEqual(
      await nodeQueuesFor(command, { nodes: ['a', 'b'], hostRoot: '/mnt/nodes', nodesOnly: true }),
      {
        nodes: [
          { node: 'a', hostRoot: '/mnt/nodes' },
          { node: 'b', hostRoot: '/mnt/nodes' },
        ],
      },
    );
    assert.equal(await nodeQueuesFor(command, { nodes: [], nodesOnly: false }), undefined);
    await assert.rejects(nodeQueuesFor(command, { nodes: [], nodesOnly: true }), UsageError);
    await assert.rejects(
      nodeQueuesFor(command, { nodes: [], hostRoot: '/mnt', nodesOnly: false }),
      /--host-root needs the --node/,
    );
  });

  it("the local mesh: every node by default; a named node at the local mesh's root for it, never /", async () => {
    const localState = await scratch.dir('mesh-node-queues-local-');
    const local = { adapter: 'local' as const, localState };
    assert.deepEqual(await nodeQueuesFor(local, { nodes: [], nodesOnly: false }), { localMesh: localState });
    const { hostRoot } = await new LocalMesh({ stateDir: localState }).createNode('n1', { adopted: false });
    assert.notEqual(hostRoot, '/');
    assert.deepEqual(await nodeQueuesFor(local, { nodes: ['n1'], nodesOnly: false }), {
      nodes: [{ node: 'n1', hostRoot }],
    });
    await assert.rejects(
      nodeQueuesFor(local, { nodes: ['n2'], nodesOnly: false }),
      /The local mesh in .* has no node n2\./,
    );
  });
});
