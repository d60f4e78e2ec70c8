import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { it } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import { BASE_IMAGE } from '../../docker/engine';
import { hostPathOnNode } from '../../docker/placement';
import { runbookWorkflowId, statusQuery, type RunbookStatus } from '../../workflows/contracts';
import { exists, FROM, TO } from '../support/data-move';
import {
  assertRunsOn,
  fleetEnded,
  moveFleetInput,
  seedModuleOnNodes,
  startMoveFleet,
} from '../support/data-move-fleet';
import { nodeStarted, nodeStatus } from '../support/edge-flip-fleet';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { decide, decisionRefusal, statusWhen, stepState, waitingAt } from '../support/runbooks';
import { describe } from '../support/side-by-side';

const APPROVAL = 'approve-remove-old-data';

/** Who decided at the node's removal approval, as `action by`; one taken from the fleet's approval is `fleet`. */
function removals(status: RunbookStatus): string[] {
  return status.decisions
    .filter((d) => d.gate === APPROVAL)
    .map((d) => (d.comment?.startsWith("the fleet's approval") ? 'fleet' : `${d.action} ${d.by}`));
}

/** The fleet once it waits at `gate` (or ended): the wait before may still show right after a decision. */
async function waitsAt(fleet: WorkflowHandle, gate: string): Promise<RunbookStatus> {
  const paused = await statusWhen(
    fleet,
    (s) => s.waiting?.gate === gate || ['completed', 'failed', 'aborted'].includes(s.phase),
    180_000,
  );
  assert.equal(paused.waiting?.gate, gate, `the fleet waits at ${gate}: ${JSON.stringify(paused.waiting)}`);
  return paused;
}

/** The node's own runbook, once it waits at `gate`. */
function nodeWaitsAt(world: RunbookWorld, node: string, gate: string): Promise<RunbookStatus> {
  return statusWhen(world.client.workflow.getHandle(runbookWorkflowId(node)), waitingAt(gate), 120_000);
}

describe('a data-path-move fleet: each node moves its own data on its own, canary first (real Temporal, real Docker, four nodes)', () => {
  it("canary-then-waves: the canary's removal, one approval for the waves, and the node whose A a stranger uses asks its own", async () => {
    await using world = await runbookWorld();
    const { module, nodes, roots } = await seedModuleOnNodes(world, 4);
    const [canary, clean, held, last] = nodes as [string, string, string, string];
    const heldRoot = roots[2] as string;
    const fleet = await startMoveFleet(
      world,
      moveFleetInput(module, nodes, { approvals: 'canary-then-waves' }),
    );

    // A stranger comes to use the held node's A once its move passed the switch: its A must stay.
    const stranger = (async () => {
      const own = world.client.workflow.getHandle(runbookWorkflowId(held));
      await statusWhen(own, (s) => stepState(s, 'switch-spec') === 'done', 240_000);
      const user = await world.engine.docker.createContainer({
        name: `${held}-stranger`,
        Image: BASE_IMAGE,
        Cmd: ['sh', '-c', 'trap "exit 0" TERM; sleep 600 & wait'],
        HostConfig: { Binds: [`${hostPathOnNode(heldRoot, FROM)}:/data`] },
      });
      await user.start();
    })();

    await waitsAt(fleet, canary);
    const asked = await nodeWaitsAt(world, canary, APPROVAL);
    assert.ok(asked.waiting?.actions.includes('remove'), asked.waiting?.reason);
    assert.equal(stepState(asked, 'gate-apply'), 'done', 'the canary was recreated on B before its push');
    assert.equal(stepState(asked, 'freeze-policy'), 'skipped');
    await decide(world.client.workflow.getHandle(runbookWorkflowId(canary)), 'remove', APPROVAL);

    const waves = await waitsAt(fleet, 'approve-move-waves');
    assert.deepEqual(waves.waiting?.actions, ['approve', 'abort']);
    assert.ok(waves.waiting?.facts.includes(`later nodes (3): ${clean}, ${held}, ${last}`));
    assert.match(waves.waiting?.reason ?? '', /later node remove its old data \(when nothing uses it/);
    // The starter may not approve: the waves stand for each later node's removal, a four-eyes gate.
    const refusal = await decisionRefusal(decide(fleet, 'approve', undefined, 'alice'));
    assert.match(refusal, /^alice started this runbook and may not also approve approve-move-waves/);
    await decide(fleet, 'approve', undefined, 'bob');

    await waitsAt(fleet, held);
    const own = await nodeWaitsAt(world, held, APPROVAL);
    assert.deepEqual(own.waiting?.actions, ['keep', 'recheck']);
    assert.match(own.waiting?.reason ?? '', new RegExp(`${held}-stranger`));
    await decide(world.client.workflow.getHandle(runbookWorkflowId(held)), 'keep', APPROVAL);
    await stranger;

    const done = await fleetEnded(fleet);
    assert.equal(done.phase, 'completed', done.outcome);
    for (const [i, node] of nodes.entries()) {
      const root = roots[i] as string;
      assert.equal(
        await readFile(join(hostPathOnNode(root, TO), 'owner.txt'), 'utf8'),
        `the data of ${node}\n`,
      );
      await assertRunsOn(world, node, module, hostPathOnNode(root, TO));
      assert.equal(await exists(hostPathOnNode(root, FROM)), node === held, `A of ${node}`);
    }
    assert.deepEqual(removals(await nodeStatus(world, canary)), ['remove bob']);
    assert.deepEqual(removals(await nodeStatus(world, clean)), ['fleet']);
    assert.deepEqual(removals(await nodeStatus(world, held)), ['keep bob']);
    assert.deepEqual(removals(await nodeStatus(world, last)), ['fleet']);
    const note = (await nodeStatus(world, last)).steps.find((s) => s.name === APPROVAL)?.note ?? '';
    assert.match(
      note,
      /ok at first look: check-target [0-9a-f]{10}, verify-copy [0-9a-f]{10}, catch-up [0-9a-f]{10}, gate-apply [0-9a-f]{10}$/,
    );
    assert.equal(
      (await world.mesh.moduleSpec(module)).upgradePolicy,
      'roll-out',
      'restored after the last node',
    );
  });

  it('a node that fails pauses the fleet; continue goes on, and the policy stays manual while a node is still on A', async () => {
    await using world = await runbookWorld();
    const { module, nodes, roots } = await seedModuleOnNodes(world, 4);
    const [canary, , failing] = nodes as [string, string, string, string];
    const failingRoot = roots[2] as string;
    // B is not empty on the third node: its preflight refuses, and nothing of it moves.
    await mkdir(hostPathOnNode(failingRoot, TO), { recursive: true });
    await writeFile(join(hostPathOnNode(failingRoot, TO), 'stray.txt'), 'not the store\n');
    const fleet = await startMoveFleet(world, moveFleetInput(module, nodes, { approvals: 'canary-only' }));

    await waitsAt(fleet, canary);
    await nodeWaitsAt(world, canary, APPROVAL);
    await decide(world.client.workflow.getHandle(runbookWorkflowId(canary)), 'remove', APPROVAL);

    const paused = await waitsAt(fleet, failing);
    assert.deepEqual(paused.waiting?.actions, ['continue', 'abort']);
    assert.match(paused.waiting?.reason ?? '', new RegExp(`^${failing} failed: `));
    await decide(fleet, 'continue', failing);

    const done = await fleetEnded(fleet);
    assert.equal(done.phase, 'failed', done.outcome);
    assert.match(done.outcome ?? '', /3 of 4 completed/);
    assert.match(done.outcome ?? '', new RegExp(`policy left manual: ${module}'s spec mounts ${TO}`));
    assert.equal((await world.mesh.moduleSpec(module)).upgradePolicy, 'manual');
    await assertRunsOn(world, failing, module, hostPathOnNode(failingRoot, FROM));
    assert.equal(await exists(join(hostPathOnNode(failingRoot, FROM), 'owner.txt')), true);
    for (const [i, node] of nodes.entries())
      if (node !== failing) await assertRunsOn(world, node, module, hostPathOnNode(roots[i] as string, TO));
    const status = await fleet.query(statusQuery);
    assert.equal(stepState(status, 'restore-policy'), 'skipped');
  });

  it('abort at the waves: no later node starts, the canary stays on B, and the policy stays manual', async () => {
    await using world = await runbookWorld();
    const { module, nodes, roots } = await seedModuleOnNodes(world, 3);
    const [canary, ...later] = nodes as [string, string, string];
    const fleet = await startMoveFleet(
      world,
      moveFleetInput(module, nodes, { approvals: 'canary-then-waves' }),
    );
    await waitsAt(fleet, canary);
    await nodeWaitsAt(world, canary, APPROVAL);
    await decide(world.client.workflow.getHandle(runbookWorkflowId(canary)), 'remove', APPROVAL);
    await waitsAt(fleet, 'approve-move-waves');
    await decide(fleet, 'abort', undefined, 'bob');

    const done = await fleetEnded(fleet);
    assert.equal(done.phase, 'aborted', done.outcome);
    assert.match(done.outcome ?? '', new RegExp(`^aborted by bob at approve-move-waves; 1 of 3 completed`));
    assert.match(done.outcome ?? '', new RegExp(`policy left manual: ${module}'s spec mounts ${TO}`));
    assert.equal((await world.mesh.moduleSpec(module)).upgradePolicy, 'manual');
    await assertRunsOn(world, canary, module, hostPathOnNode(roots[0] as string, TO));
    for (const [i, node] of later.entries()) {
      assert.equal(await nodeStarted(world, node), false, `${node} never started`);
      await assertRunsOn(world, node, module, hostPathOnNode(roots[i + 1] as string, FROM));
    }
  });
});
