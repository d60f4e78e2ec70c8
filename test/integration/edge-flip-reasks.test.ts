import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import type { RunbookStatus } from '../../workflows/contracts';
import { runbookWorkflowId } from '../../workflows/contracts';
import { fleetWaitsOrEnds, seedFleet, startFleet } from '../support/edge-flip-fleet';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { decide, statusWhen, waitingAt } from '../support/runbooks';

const CYCLES = 50;

/** A run's history as Temporal holds it: how many events, and how many childReport signals among them. */
async function historyOf(handle: WorkflowHandle): Promise<{ events: number; reports: number }> {
  const events = (await handle.fetchHistory()).events ?? [];
  const reports = events.filter(
    (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'childReport',
  ).length;
  return { events: events.length, reports };
}

/**
 * The approval as it is asked now. A look of recheck-successor that caught the container paused waits; once
 * it says ok again the operator rechecks, as the wait asks, and the approval is asked anew.
 */
async function approvalAsked(handle: WorkflowHandle): Promise<RunbookStatus> {
  for (;;) {
    const now = await statusWhen(
      handle,
      (s) =>
        waitingAt('approve-stop-predecessor')(s) ||
        (waitingAt('recheck-successor')(s) && s.waiting?.verdict === 'ok'),
    );
    if (now.waiting?.gate === 'approve-stop-predecessor') return now;
    await decide(handle, 'recheck', 'recheck-successor');
    await statusWhen(handle, (s) => s.waiting?.since !== now.waiting?.since);
  }
}

/** Whether the ask says its watch is paused: a change now is not looked at until later. */
function watchPaused(status: RunbookStatus): boolean {
  return (status.waiting?.facts ?? []).some((f) => /changes are looked at again from/.test(f));
}

async function pauseAndUnpause(world: RunbookWorld, name: string, seen: () => Promise<unknown>) {
  const container = world.engine.docker.getContainer(name);
  await container.pause();
  assert.equal((await world.engine.inspect(name))?.State.Paused, true);
  await seen();
  await container.unpause();
  assert.equal((await world.engine.inspect(name))?.State.Running, true);
}

describe('a waiting approval re-asked because its evidence changed backs off (real Temporal, real Docker)', () => {
  it(`${CYCLES} docker pause/unpause cycles of the successor while a fleet's node waits for its approval add a bounded number of events to the node's history and its fleet's`, async () => {
    await using world = await runbookWorld();
    const input = await seedFleet(world, { count: 1 });
    const node = input.runbooks[0]?.node ?? '';
    const fleet = await startFleet(world, input);
    const handle = world.client.workflow.getHandle(runbookWorkflowId(node));
    await approvalAsked(handle);
    await fleetWaitsOrEnds(fleet);
    const before = { node: await historyOf(handle), fleet: await historyOf(fleet) };

    let changesSeen = 0;
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const asked = await approvalAsked(handle);
      // While the watch looks, the pause ends the ask: seen once the runbook left that wait.
      const looking = !watchPaused(asked);
      if (looking) changesSeen += 1;
      await pauseAndUnpause(world, `${node}.route-proxy.edge`, async () => {
        if (looking) await statusWhen(handle, (s) => s.waiting?.since !== asked.waiting?.since);
      });
    }
    const settled = await approvalAsked(handle);
    const after = { node: await historyOf(handle), fleet: await historyOf(fleet) };
    const added = {
      node: after.node.events - before.node.events,
      fleet: after.fleet.events - before.fleet.events,
      reports: after.fleet.reports - before.fleet.reports,
    };
    console.log(
      `${CYCLES} pause/unpause cycles, ${changesSeen} seen by the approval's watch: node history ${before.node.events} → ${after.node.events} events (+${added.node}), fleet history ${before.fleet.events} → ${after.fleet.events} (+${added.fleet}, ${added.reports} childReport signals)`,
    );
    assert.ok(added.node <= 900, `the node's history grew by ${added.node} events`);
    assert.ok(added.reports <= 20, `${added.reports} reports to the fleet`);
    assert.ok(changesSeen <= 5, `${changesSeen} changes seen`);
    assert.ok(watchPaused(settled), 'the ask says when it looks again');

    // The approval still stands on the successor as it is now: approved (once its health settled after the
    // last pause, rechecked as asked), the flip goes on and the fleet ends.
    await decide(handle, 'approve', 'approve-stop-predecessor');
    for (;;) {
      const now = await statusWhen(
        handle,
        (s) => s.waiting?.verdict === 'ok' || s.waiting?.verdict === 'approval' || s.phase === 'completed',
      );
      if (now.phase === 'completed') break;
      await decide(handle, now.waiting?.verdict === 'ok' ? 'recheck' : 'approve', now.waiting?.gate);
      await statusWhen(handle, (s) => s.waiting?.since !== now.waiting?.since);
    }
    const done = await statusWhen(fleet, (s) => !['running', 'waiting'].includes(s.phase));
    assert.equal(done.phase, 'completed', done.outcome);
  });
});
