// harness: own dev server: its edge-flip fleet runbook is runbook-fleet-route-proxy, one id per namespace that other files start too
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { WorkflowExecutionDescription, WorkflowExecutionInfo } from '@temporalio/client';
import { follow } from '../../cli/runbook/follow/follow';
import type { RunbookHistory } from '../../cli/runbook/history/record';
import {
  pauseUpdate,
  QUEUE_MEMO,
  resumeUpdate,
  runbookWorkflowId,
  statusQuery,
} from '../../workflows/contracts';
import { fleetWorkflowId } from '../../workflows/fleet/contracts';
import {
  answerNode,
  fleetWaitsOrEnds,
  nodeStarted,
  nodeStatus,
  seedFleet,
  startFleet,
} from '../support/edge-flip-fleet';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { decide, statusWhen, stepState } from '../support/runbooks';
import { AN_HOUR, cliClient } from '../support/cli-client';

/** A bound small enough that five nodes take several runs: each continues as new past 80 events. */
const BOUND = 160;

/** `mesh runbook history <id> --json` on the world's queue: what an operator reads of the whole fleet. */
async function historyJson(world: RunbookWorld, id: string): Promise<RunbookHistory> {
  const env = { ...process.env, MESH_TASK_QUEUE: world.taskQueue };
  const mesh = join(__dirname, '..', '..', 'bin', 'mesh.js');
  const { stdout } = await promisify(execFile)(mesh, ['runbook', 'history', id, '--json'], { env });
  return JSON.parse(stdout) as RunbookHistory;
}

/** Every execution Temporal knows under this workflow id (a node's id is the world's own), oldest first. */
async function executionsOf(world: RunbookWorld, workflowId: string): Promise<WorkflowExecutionInfo[]> {
  const runs: WorkflowExecutionInfo[] = [];
  for await (const run of world.client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
    runs.push(run);
  return runs.sort((a, b) => a.startTime.getTime() - b.startTime.getTime());
}

/**
 * The runs of the fleet running now, oldest first: from its latest run back along each run's predecessor
 * (earlier tests' fleets share the id, and are no part of this chain).
 */
async function chainOf(world: RunbookWorld, workflowId: string): Promise<WorkflowExecutionDescription[]> {
  const runs: WorkflowExecutionDescription[] = [];
  for (let runId: string | undefined; ;) {
    const handle = world.client.workflow.getHandle(workflowId, runId);
    runs.unshift(await handle.describe());
    const started = (await handle.fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes;
    runId = started?.continuedExecutionRunId || undefined;
    if (runId === undefined) return runs;
  }
}

async function eventsOf(world: RunbookWorld, workflowId: string, runId: string): Promise<number> {
  const history = await world.client.workflow.getHandle(workflowId, runId).fetchHistory();
  return history.events?.length ?? 0;
}

describe('fleet history bound (real Temporal, real Docker, five nodes, one held)', () => {
  it('continues as new between node starts, no node runs twice, and the last run knows the whole fleet', async () => {
    await using world = await runbookWorld();
    const input = {
      ...(await seedFleet(world, { count: 5, heldAt: [4] })),
      approvals: 'canary-then-waves' as const,
      historyBound: BOUND,
    };
    const order = input.runbooks.map((r) => r.node);
    const [canary, , , , held] = order as [string, string, string, string, string];
    const fleet = await startFleet(world, input);

    await fleetWaitsOrEnds(fleet);
    assert.equal(await answerNode(world, fleet, canary), 'approve');
    const asked = await fleetWaitsOrEnds(fleet);
    assert.equal(asked.waiting?.gate, 'approve-waves');
    await decide(fleet, 'approve', undefined, 'bob');

    // A follower that only looks when the history grows follows the fleet into its later runs: the held node
    // waits in one of them, which shows the nodes earlier runs flipped.
    await using rb = await cliClient(world);
    const givingUp = setTimeout(() => process.emit('SIGINT'), 120_000);
    const followed = await follow(rb, fleet.workflowId, {
      stopWhenWaiting: true,
      quiet: true,
      pollMs: AN_HOUR,
    }).finally(() => clearTimeout(givingUp));
    assert.equal(followed.how, 'waiting', 'it never looked again after the fleet continued as new');
    assert.ok((await chainOf(world, fleet.workflowId)).length >= 2, 'the follower saw a later run');
    const waiting = await fleetWaitsOrEnds(fleet);
    assert.equal(waiting.waiting?.gate, held, JSON.stringify(waiting.waiting));
    for (const node of order.slice(0, 4)) assert.equal(stepState(waiting, node), 'done', node);
    assert.equal(stepState(waiting, 'approve-waves'), 'done');
    assert.equal(await answerNode(world, fleet, held), 'take');
    await fleetWaitsOrEnds(fleet);
    assert.equal(await answerNode(world, fleet, held), 'approve');

    const done = await fleet.result();
    assert.equal(done.phase, 'completed', done.outcome);
    assert.equal(done.outcome, `route-proxy on ${order.join(', ')}: 5 of 5 completed`);
    assert.deepEqual(
      done.decisions.map((d) => `${d.gate} ${d.action} ${d.by}`),
      ['approve-waves approve bob'],
    );

    const fleetId = fleetWorkflowId('route-proxy');
    const runs = await chainOf(world, fleetId);
    assert.ok(runs.length >= 2, `the fleet continued as new (${runs.length} run)`);
    for (const run of runs) {
      const events = await eventsOf(world, fleetId, run.runId);
      assert.ok(events <= BOUND, `run ${run.runId} has ${events} events, past the bound ${BOUND}`);
    }
    assert.deepEqual(
      runs.slice(0, -1).map((run) => run.status.name),
      runs.slice(0, -1).map(() => 'CONTINUED_AS_NEW'),
    );
    assert.ok(runs.at(-1)?.memo?.[QUEUE_MEMO], 'the last run keeps the memo the CLI finds its queue by');
    assert.deepEqual(await fleet.query(statusQuery), done);

    // history reads every run: started when the first did, the waves' approval given in an earlier run.
    const history = await historyJson(world, fleetId);
    assert.equal(history.startedAt, runs[0]?.startTime.toISOString());
    assert.deepEqual(
      history.decisions.map((d) => `${d.gate} ${d.action} ${d.by}`),
      ['approve-waves approve bob'],
    );
    assert.equal(history.phase, 'completed');

    for (const node of order) {
      assert.equal((await executionsOf(world, runbookWorkflowId(node))).length, 1, `${node} ran once`);
      assert.equal((await nodeStatus(world, node)).phase, 'completed', node);
    }
    // Nodes started by a continued run still stop their predecessor on the fleet's approval.
    const lastClean = await nodeStatus(world, order[3] as string);
    assert.match(
      lastClean.steps.find((s) => s.name === 'approve-stop-predecessor')?.note ?? '',
      /^approved for the fleet by bob \(approve-waves of runbook-fleet-route-proxy/,
    );
  });

  it('a pause given in one run holds in the run the fleet continued as, until resume', async () => {
    await using world = await runbookWorld();
    const input = {
      ...(await seedFleet(world, { count: 3 })),
      approvals: 'canary-then-waves' as const,
      historyBound: 100,
    };
    const [canary, second, third] = input.runbooks.map((r) => r.node) as [string, string, string];
    const fleet = await startFleet(world, input);
    try {
      await fleetWaitsOrEnds(fleet);
      await fleet.executeUpdate(pauseUpdate, { args: [{ by: 'carol', reason: 'watch the canary a while' }] });
      assert.equal(await answerNode(world, fleet, canary), 'approve');
      assert.equal((await fleetWaitsOrEnds(fleet)).waiting?.gate, 'approve-waves');
      await decide(fleet, 'approve', undefined, 'bob');

      const held = await statusWhen(fleet, (s) => s.paused?.holdsBefore !== undefined, 120_000);
      const runs = await chainOf(world, fleet.workflowId);
      assert.ok(runs.length >= 2, `the fleet continued as new before ${second} (${runs.length} run)`);
      assert.equal(held.paused?.by, 'carol', 'the pause came along into the new run');
      assert.equal(held.paused?.holdsBefore, second);
      assert.equal(await nodeStarted(world, second), false, 'a paused fleet starts no node in its new run');

      await fleet.executeUpdate(resumeUpdate, { args: [{ by: 'erin' }] });
      const done = await fleet.result();
      assert.equal(done.phase, 'completed', done.outcome);
      assert.equal(done.outcome, `route-proxy on ${canary}, ${second}, ${third}: 3 of 3 completed`);
    } finally {
      await fleet.cancel().catch(() => undefined);
      await fleet.result().catch(() => undefined);
    }
  });
});
