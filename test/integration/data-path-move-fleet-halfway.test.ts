import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { WorkflowHandle } from '@temporalio/client';
import { containerName, hostPathOnNode } from '../../docker/placement';
import { pauseUpdate, runbookWorkflowId, statusQuery, type RunbookStatus } from '../../workflows/contracts';
import { fleetWorkflowId } from '../../workflows/fleet/contracts';
import { addBulkData, exists, FROM, TO } from '../support/data-move';
import {
  assertRunsOn,
  fleetEnded,
  moveFleetInput,
  seedModuleOnNodes,
  startMoveFleet,
} from '../support/data-move-fleet';
import { nodeStatus } from '../support/edge-flip-fleet';
import { meshRunbook } from '../support/mesh-cli';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { decide, statusWhen, stepState, waitingAt } from '../support/runbooks';

/**
 * A move fleet that stops halfway: a node caught between its copy and its push is not left down waiting for
 * a decision nobody can make otherwise; a second fleet moves the nodes still on A and names those already on
 * B; and one A shared by two nodes (one directory mounted on both, as a network file system would be) is
 * not offered for removal until every node using it has moved. Real Temporal, Docker, files, a real bind mount.
 */

const APPROVAL = 'approve-remove-old-data';
const WAIT_MS = 180_000;

const run = promisify(execFile);

function own(world: RunbookWorld, node: string): WorkflowHandle {
  return world.client.workflow.getHandle(runbookWorkflowId(node));
}

/** The node's own runbook, once it waits at `gate`. */
function nodeWaitsAt(world: RunbookWorld, node: string, gate: string): Promise<RunbookStatus> {
  return statusWhen(own(world, node), waitingAt(gate), WAIT_MS);
}

/** The fleet once it waits at `gate` (its node gates are the nodes' names). */
function fleetWaitsAt(fleet: WorkflowHandle, gate: string): Promise<RunbookStatus> {
  return statusWhen(fleet, waitingAt(gate), WAIT_MS);
}

/** `mount --bind from onto`: one directory seen at two paths, as a network file system mounted on two nodes. */
async function bindMount(from: string, onto: string): Promise<AsyncDisposable> {
  await run('mount', ['--bind', from, onto]);
  return { [Symbol.asyncDispose]: () => run('umount', ['--lazy', onto]).then(() => undefined) };
}

describe('a data-path-move fleet that stops halfway can be finished (real Temporal, real Docker)', () => {
  it('a node between its copy and its push when the fleet is aborted: its undo takes keep itself (the only action) and the module comes up on B, instead of waiting down for a person', async () => {
    await using world = await runbookWorld();
    const { module, nodes, roots } = await seedModuleOnNodes(world, 2);
    const [canary, later] = nodes as [string, string];
    const laterRoot = roots[1] as string;
    // Enough data that the later node's copy lasts while the test asks it to pause.
    await addBulkData(hostPathOnNode(laterRoot, FROM), 40, 2_000);
    const fleet = await startMoveFleet(world, moveFleetInput(module, nodes));
    await nodeWaitsAt(world, canary, APPROVAL);
    await decide(own(world, canary), 'keep', APPROVAL);

    // A pause asked during its copy holds at the first boundary it may: before the catch-up's stop.
    await statusWhen(own(world, later), (s) => stepState(s, 'copy') === 'running', WAIT_MS);
    await own(world, later).executeUpdate(pauseUpdate, {
      args: [{ by: 'carol', reason: 'look at the canary first' }],
    });
    const held = await statusWhen(own(world, later), (s) => s.paused?.holdsBefore !== undefined, WAIT_MS);
    assert.equal(held.paused?.holdsBefore, 'stop-containers', JSON.stringify(held.steps));
    assert.equal(stepState(held, 'switch-spec'), 'done');
    const web = containerName(later, module, 'web');
    assert.equal((await world.engine.inspect(web))?.State.Running, false, 'the module is down on the node');

    await fleet.cancel();
    const ended = await fleetEnded(fleet);
    assert.equal(ended.phase, 'aborted', ended.outcome);
    const status = await nodeStatus(world, later);
    assert.equal(status.phase, 'aborted', status.outcome);
    assert.equal(stepState(status, 'switch-back'), 'compensated');
    assert.equal(stepState(status, 'after-switch'), 'done');
    assert.match(
      status.steps.find((s) => s.name === 'after-switch')?.note ?? '',
      new RegExp(
        `^keep, without asking: it is the only action \\(other nodes of ${fleetWorkflowId(module)} run on ${TO}, so the spec stays there\\) and ${module} was down on ${later}: it catches up and recreates ${module} on ${TO}$`,
      ),
    );
    assert.deepEqual(
      status.decisions.filter((d) => d.gate === 'after-switch'),
      [],
      'nobody decided',
    );
    await assertRunsOn(world, later, module, hostPathOnNode(laterRoot, TO));
    assert.equal(
      await readFile(join(hostPathOnNode(laterRoot, TO), 'owner.txt'), 'utf8'),
      `the data of ${later}\n`,
    );
  });

  it('a second fleet (`mesh runbook start data-path-move --nodes`) moves the nodes left on A, naming the one on B already, and does not run it again', async () => {
    await using world = await runbookWorld();
    const { module, nodes, roots } = await seedModuleOnNodes(world, 3);
    const [canary, b, c] = nodes as [string, string, string];
    const first = await startMoveFleet(
      world,
      moveFleetInput(module, nodes, { approvals: 'canary-then-waves' }),
    );
    await nodeWaitsAt(world, canary, APPROVAL);
    await decide(own(world, canary), 'remove', APPROVAL);
    await fleetWaitsAt(first, 'approve-move-waves');
    await decide(first, 'abort', undefined, 'bob');
    const aborted = await fleetEnded(first);
    assert.match(aborted.outcome ?? '', /move the rest/);
    const canaryRun = (await own(world, canary).describe()).runId;

    const start = await meshRunbook(
      world,
      'start',
      ...['data-path-move', '--module', module, '--from', FROM, '--to', TO, '--as', 'alice'],
      ...['--nodes', nodes.join(','), '--approvals', 'canary-only', '--yes', '--detach'],
    );
    assert.equal(start.code, 0, start.stderr);
    const fleet = world.client.workflow.getHandle(fleetWorkflowId(module));
    await nodeWaitsAt(world, b, APPROVAL);
    await decide(own(world, b), 'remove', APPROVAL);
    const done = await fleetEnded(fleet);
    assert.equal(done.phase, 'completed', done.outcome);
    assert.match(done.outcome ?? '', new RegExp(`done before this fleet, not run again: ${canary}`));
    assert.equal(stepState(done, canary), 'skipped');
    assert.match(
      done.steps.find((s) => s.name === canary)?.note ?? '',
      new RegExp(`^runs on ${TO} already \\(.* mounts ${TO}\\): moved before this fleet, not moved again$`),
    );
    assert.match(
      done.steps.find((s) => s.name === 'preflight')?.note ?? '',
      new RegExp(
        `its spec mounts ${TO} already \\(an earlier move switched it\\): ${b}, ${c} still on ${FROM}, ${canary} on ${TO} \\(not moved again\\)$`,
      ),
    );
    assert.equal(
      (await own(world, canary).describe()).runId,
      canaryRun,
      "the canary's runbook did not run again",
    );
    for (const [i, node] of nodes.entries()) {
      await assertRunsOn(world, node, module, hostPathOnNode(roots[i] as string, TO));
      assert.equal(
        await readFile(join(hostPathOnNode(roots[i] as string, TO), 'owner.txt'), 'utf8'),
        `the data of ${node}\n`,
      );
    }
    assert.equal(
      await exists(hostPathOnNode(roots[2] as string, FROM)),
      false,
      "c removed A on b's approval",
    );
    // The first fleet left the policy manual; this one found it so and says it.
    assert.match(
      done.steps.find((s) => s.name === 'freeze-policy')?.note ?? '',
      /^was manual \(as the move before this one may have left it\); manual until every node moved$/,
    );
    const status = await fleet.query(statusQuery);
    assert.equal(status.phase, 'completed');
  });

  it('one A shared by two nodes: the canary is not offered its removal while the other node still serves from it; the last node to move may remove it', async () => {
    await using world = await runbookWorld();
    const { module, nodes, roots } = await seedModuleOnNodes(world, 2);
    const [canary, later] = nodes as [string, string];
    const [canaryRoot, laterRoot] = roots as [string, string];
    // The later node's /srv is the canary's: its A is the same directory (as one NFS export on both).
    await using _shared = await bindMount(
      hostPathOnNode(canaryRoot, '/srv'),
      hostPathOnNode(laterRoot, '/srv'),
    );
    await world.engine.docker.getContainer(containerName(later, module, 'web')).restart();
    const fleet = await startMoveFleet(world, moveFleetInput(module, nodes));

    const asked = await nodeWaitsAt(world, canary, APPROVAL);
    assert.deepEqual(asked.waiting?.actions, ['keep', 'recheck'], asked.waiting?.reason);
    assert.match(
      asked.waiting?.reason ?? '',
      new RegExp(
        `^${module} runs on ${TO}, but ${FROM} is the same directory on ${later} \\(a mark left in it here was seen there: a network file system, or one directory mounted on both\\), where 1 container\\(s\\) still use it \\(${later}: container ${containerName(later, module, 'web')} \\(running\\) mounts ${FROM}\\): removing it would delete their data, so remove is not offered until every node sharing it has moved\\.`,
      ),
    );
    assert.ok(
      asked.waiting?.facts.includes(`${FROM} is the same directory on ${later}: it saw the mark left in it`),
    );
    // Its mark was taken away once looked for: A holds what it held.
    assert.deepEqual(await readdir(hostPathOnNode(laterRoot, FROM)), ['owner.txt']);
    await decide(own(world, canary), 'keep', APPROVAL);

    const last = await nodeWaitsAt(world, later, APPROVAL);
    assert.ok(last.waiting?.actions.includes('remove'), last.waiting?.reason);
    assert.match(
      last.waiting?.reason ?? '',
      new RegExp(
        `remove deletes ${FROM} on ${later} \\(the same directory as ${FROM} on ${canary}, where nothing uses it any more\\)`,
      ),
    );
    await decide(own(world, later), 'remove', APPROVAL);
    const done = await fleetEnded(fleet);
    assert.equal(done.phase, 'completed', done.outcome);
    await assertRunsOn(world, canary, module, hostPathOnNode(canaryRoot, TO));
    await assertRunsOn(world, later, module, hostPathOnNode(laterRoot, TO));
    for (const root of roots)
      assert.equal(await exists(hostPathOnNode(root, join(FROM, 'owner.txt'))), false);
    // No mark is left behind in the data it looked at.
    assert.equal(await exists(hostPathOnNode(canaryRoot, TO)), true);
  });
});
