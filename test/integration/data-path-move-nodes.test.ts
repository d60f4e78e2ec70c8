import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { hostPathOnNode } from '../../docker/placement';
import { dataPathMove } from '../../workflows';
import type { RunbookStatus } from '../../workflows/contracts';
import { exists, FROM, TO } from '../support/data-move';
import { assertRunsOn, seedModuleOnNodes } from '../support/data-move-fleet';
import { runbookWorld } from '../support/runbook-world';
import { decide, FAST_TIMINGS, statusWhen, waitingAt } from '../support/runbooks';

describe('a data-path move of a module on two nodes moves each node’s data on that node (real Temporal, real Docker)', () => {
  it('with --nodes naming both: each node’s copy lands in its own root, each container is recreated on B there', async () => {
    await using world = await runbookWorld();
    const { module, nodes, roots } = await seedModuleOnNodes(world, 2);
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
    const waiting = await statusWhen(handle, waitingAt('gate-apply'));
    assert.equal(waiting.waiting?.verdict, 'unrecreated-volume', waiting.waiting?.reason);
    await decide(handle, 'recreate', 'gate-apply');
    await statusWhen(handle, waitingAt('approve-remove-old-data'));
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
      await assertRunsOn(world, node, module, hostPathOnNode(root, TO));
    }
  });
});
