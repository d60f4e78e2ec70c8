import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { containerName, hostPathOnNode } from '../../docker/placement';
import { waitForApplyReport } from '../../mesh/wait-for-apply';
import { dataPathMove } from '../../workflows';
import type { RunbookStatus } from '../../workflows/contracts';
import { exists, FROM, TO } from '../support/data-move';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { decide, FAST_TIMINGS, statusWhen, waitingAt } from '../support/runbooks';

/** A module of one long-running container mounting A, assigned to two nodes, each with data of its own. */
async function seedOnTwoNodes(world: RunbookWorld) {
  const module = `store-${randomBytes(3).toString('hex')}`;
  const image = world.imageName('store');
  const nodes = [world.nodeName(), world.nodeName()];
  await world.mesh.defineModule({
    module,
    upgradePolicy: 'roll-out',
    dataDirs: [FROM],
    containers: [
      {
        name: 'web',
        image,
        command: ['sh', '-c', "trap 'exit 0' TERM; while true; do sleep 1; done"],
        mounts: [{ hostPath: FROM, containerPath: '/data' }],
      },
    ],
  });
  const roots: string[] = [];
  for (const node of nodes) {
    const { hostRoot } = await world.mesh.createNode(node, { adopted: false });
    roots.push(hostRoot);
    await mkdir(hostPathOnNode(hostRoot, FROM), { recursive: true });
    await writeFile(join(hostPathOnNode(hostRoot, FROM), 'owner.txt'), `the data of ${node}\n`);
    await world.mesh.assign(module, node);
    const receipt = await world.mesh.push(node);
    await waitForApplyReport(world.mesh, node, receipt.pushId, { timeoutMs: 30_000 });
  }
  return { module, nodes, roots };
}

describe('a data-path move of a module on two nodes moves each node’s data on that node (real Temporal, real Docker)', () => {
  it('with --nodes naming both: each node’s copy lands in its own root, each container is recreated on B there', async () => {
    await using world = await runbookWorld();
    const { module, nodes, roots } = await seedOnTwoNodes(world);
    const [first, second] = nodes as [string, string];
    const handle = await world.start(dataPathMove, {
      node: first,
      nodes: [first, second],
      module,
      from: FROM,
      to: TO,
      startedBy: 'alice',
      timings: FAST_TIMINGS,
    });
    const waiting = await statusWhen(handle, waitingAt('gate-apply'), 60_000);
    assert.equal(waiting.waiting?.verdict, 'unrecreated-volume', waiting.waiting?.reason);
    await decide(handle, 'recreate', 'gate-apply');
    await statusWhen(handle, waitingAt('approve-remove-old-data'), 60_000);
    await decide(handle, 'remove', 'approve-remove-old-data');
    const done: RunbookStatus = await handle.result();
    assert.equal(done.phase, 'completed', done.outcome);

    for (const [i, node] of nodes.entries()) {
      const root = roots[i] as string;
      assert.equal(
        await readFile(join(hostPathOnNode(root, TO), 'owner.txt'), 'utf8'),
        `the data of ${node}\n`,
      );
      assert.equal(await exists(hostPathOnNode(root, FROM)), false, `A removed on ${node}`);
      const info = await world.engine.inspect(containerName(node, module, 'web'));
      assert.equal(info?.State.Running, true, node);
      assert.deepEqual(
        info?.Mounts.map((m) => m.Source),
        [hostPathOnNode(root, TO)],
        `${node}'s container mounts its own B`,
      );
    }
  });
});
