import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import type { History } from '@temporalio/common/lib/proto-utils';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { LABEL } from '../../docker/engine';
import { seedEdgeScenario } from '../../mesh/local/scenarios/edge-flip-incident';
import {
  runbookWorkflowId,
  type EdgeFlipInputArg,
  type RunbookStatus,
  type Timings,
} from '../../workflows/contracts';
import { LocalWorld } from '../support/local-world';
import { decide, freePort, statusWhen, waitingAt } from '../support/runbooks';
import { harnessTarget } from '../support/temporal';
import { WorkerProcesses } from '../support/worker-process';

/**
 * The runbook survives its worker dying (docs/design.md §5, "Resumable"): the worker runs in a child
 * process, the test SIGKILLs it mid-runbook and starts another, and the runbook ends with every side
 * effect done exactly once — pushes counted in the node's journal, container starts and stops in Docker's
 * events.
 */

const FAST: Timings = {
  applyReportMs: 20_000,
  healthDeadlineMs: 20_000,
  stabilityWindowMs: 500,
  recheckEveryMs: 300,
  probeDeadlineMs: 8_000,
};

/** Bounds every wait; the activity-kill test waits out the 30 s heartbeat timeout once. */
const WAIT_MS = 120_000;
const TEST_TIMEOUT_MS = 300_000;

const { PendingActivityState, TimeoutType } = temporal.api.enums.v1;

describe('edge-flip survives a SIGKILLed worker on a real dev server, local mesh and Docker', () => {
  const workers = new WorkerProcesses();
  let world: LocalWorld;
  let connection: Connection;
  let client: Client;
  const streams: Readable[] = [];

  before(async () => {
    world = await LocalWorld.create();
    const target = harnessTarget();
    connection = await Connection.connect({ address: target.address });
    client = new Client({ connection, namespace: target.namespace });
  });

  after(async () => {
    await workers.stopAll();
    streams.forEach((stream) => stream.destroy());
    await connection?.close();
    await world?.cleanup();
  });

  /** Seeds the scenario and starts the runbook on a task queue of its own, served by a worker process. */
  async function begin(leftovers: boolean, timings: Timings) {
    const node = world.nodeName();
    const taskQueue = `kill-${randomBytes(4).toString('hex')}`;
    const lifecycle = await watchLifecycle(node);
    const seeded = await seedEdgeScenario(world.mesh, {
      node,
      predecessor: 'caddy',
      successor: 'route-proxy',
      publicPort: await freePort(),
      stagingPort: await freePort(),
      leftovers,
    });
    const predecessor = await world.engine.inspect(`${node}.caddy.edge`);
    assert.equal(predecessor?.State.Running, true);
    const spawnWorker = () => workers.start({ taskQueue, stateDir: world.stateDir });
    const first = await spawnWorker();
    const input: EdgeFlipInputArg = {
      node,
      module: 'route-proxy',
      predecessor: 'caddy',
      ...seeded,
      startedBy: 'alice',
      timings,
    };
    const handle = await client.workflow.start('edgeFlip', {
      args: [input],
      taskQueue,
      workflowId: runbookWorkflowId(node),
    });
    return {
      node,
      handle,
      first,
      spawnWorker,
      lifecycle,
      predecessorStartedAt: predecessor?.State.StartedAt,
    };
  }

  /** Push ids the node applied, in order, from its journal (one line per apply). */
  async function appliedPushes(node: string): Promise<string[]> {
    const journal = await readFile(world.mesh.layout.journal(node), 'utf8');
    return journal
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' ')[1] ?? line);
  }

  /**
   * Counts Docker's lifecycle events on the node's containers from now on. Live, not `since`: the engine
   * keeps only its last few hundred events, and healthchecks of other containers fill that quickly.
   */
  async function watchLifecycle(node: string) {
    const actions = ['create', 'start', 'stop', 'die', 'destroy'];
    const stream = (await world.engine.docker.getEvents({
      filters: JSON.stringify({ type: ['container'], event: actions, label: [`${LABEL.node}=${node}`] }),
    })) as Readable;
    streams.push(stream);
    const counts: Record<string, Record<string, number>> = {};
    let pending = '';
    stream.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines.filter(Boolean)) {
        const event = JSON.parse(line) as { Action: string; Actor: { Attributes: { name: string } } };
        const name = event.Actor.Attributes.name.slice(node.length + 1);
        const seen = (counts[name] ??= {});
        seen[event.Action] = (seen[event.Action] ?? 0) + 1;
      }
    });
    return {
      /** The counts so far, per container (`module.container`) and action, once late events arrived. */
      async counts() {
        await delay(1_000);
        return counts;
      },
    };
  }

  function scheduledActivities(history: History): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const event of history.events ?? []) {
      const name = event.activityTaskScheduledEventAttributes?.activityType?.name;
      if (name) counts[name] = (counts[name] ?? 0) + 1;
    }
    return counts;
  }

  const stepStates = (status: RunbookStatus) => status.steps.map((step) => `${step.name}: ${step.state}`);

  it(
    'killed while waiting at the hold and again at the approval: new workers finish, nothing twice',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const { node, handle, first, spawnWorker, lifecycle, predecessorStartedAt } = await begin(true, FAST);

      const held = await statusWhen(handle, waitingAt('gate-apply'), WAIT_MS);
      assert.equal(held.waiting?.verdict, 'held');
      await first.kill();
      const second = await spawnWorker();
      await decide(handle, 'take', 'gate-apply');

      await statusWhen(handle, waitingAt('approve-stop-predecessor'), WAIT_MS);
      const predecessor = await world.engine.inspect(`${node}.caddy.edge`);
      assert.equal(predecessor?.State.Running, true, 'predecessor untouched before approval');
      assert.equal(predecessor?.State.StartedAt, predecessorStartedAt, 'predecessor never restarted');
      await second.kill();
      const third = await spawnWorker();
      await decide(handle, 'approve', 'approve-stop-predecessor');

      const done: RunbookStatus = await handle.result();
      assert.equal(done.phase, 'completed', done.outcome);
      assert.deepEqual(stepStates(done), [
        'preflight: done',
        'assign-successor: done',
        'push: done',
        'gate-apply: done',
        'take: done',
        'verify-successor: done',
        'probe-successor: done',
        'approve-stop-predecessor: done',
        'stop-predecessor: done',
        'probe-public: done',
      ]);
      assert.deepEqual(
        done.decisions.map((d) => `${d.gate}: ${d.action}`),
        ['gate-apply: take', 'approve-stop-predecessor: approve'],
      );

      // Seed, after assign, after take: three pushes, each applied once.
      assert.deepEqual(await appliedPushes(node), [`${node}-1`, `${node}-2`, `${node}-3`]);
      assert.equal((await world.mesh.nodeState(node)).lastApply?.pushId, `${node}-3`);
      const history = await handle.fetchHistory();
      const scheduled = scheduledActivities(history);
      assert.equal(scheduled.pushNode, 2);
      assert.equal(scheduled.assignModule, 1);
      assert.equal(scheduled.takeModule, 1);
      assert.equal(scheduled.stopModuleContainers, 1);
      assert.equal(scheduled.unassignModule, undefined, 'no compensation ran');

      // Docker's own record: the predecessor started once (seeding) and stopped once; each successor
      // container was created and started once.
      const seen = await lifecycle.counts();
      assert.deepEqual(seen['caddy.edge'], { create: 1, start: 1, die: 1, stop: 1 });
      for (const container of ['route-proxy.edge', 'route-proxy.ca', 'route-proxy.dns'])
        assert.deepEqual(seen[container], { create: 1, start: 1 }, container);

      // Each of the three workers completed workflow tasks: the later two replayed what the earlier did.
      const identities = new Set(
        (history.events ?? []).flatMap((e) => e.workflowTaskCompletedEventAttributes?.identity ?? []),
      );
      for (const worker of [first, second, third])
        assert.ok(identities.has(worker.identity), `${worker.identity} not in ${[...identities].join(', ')}`);
    },
  );

  it(
    'killed while an activity runs: the activity is retried on the new worker after its heartbeat timeout',
    { timeout: TEST_TIMEOUT_MS },
    async (t) => {
      const timings = { ...FAST, stabilityWindowMs: 4_000 };
      const { node, handle, first, spawnWorker, lifecycle, predecessorStartedAt } = await begin(
        false,
        timings,
      );

      // Kill inside the inspection's 4 s stability window, while the first worker runs it.
      const deadline = Date.now() + WAIT_MS;
      for (;;) {
        const { raw } = await handle.describe();
        const inspecting = raw.pendingActivities?.find(
          (a) =>
            a.activityType?.name === 'inspectModuleContainers' &&
            a.state === PendingActivityState.PENDING_ACTIVITY_STATE_STARTED,
        );
        if (inspecting) {
          assert.equal(inspecting.lastWorkerIdentity, first.identity);
          break;
        }
        assert.ok(Date.now() < deadline, 'the gate never inspected the containers');
        await delay(100);
      }
      await delay(1_000);
      await first.kill();
      const killedAt = Date.now();
      const second = await spawnWorker();

      await statusWhen(handle, waitingAt('approve-stop-predecessor'), WAIT_MS);
      const predecessor = await world.engine.inspect(`${node}.caddy.edge`);
      assert.equal(predecessor?.State.StartedAt, predecessorStartedAt, 'predecessor never restarted');
      await decide(handle, 'approve', 'approve-stop-predecessor');
      const done: RunbookStatus = await handle.result();
      assert.equal(done.phase, 'completed', done.outcome);
      assert.deepEqual(stepStates(done), [
        'preflight: done',
        'assign-successor: done',
        'push: done',
        'gate-apply: done',
        'take: skipped',
        'verify-successor: done',
        'probe-successor: done',
        'approve-stop-predecessor: done',
        'stop-predecessor: done',
        'probe-public: done',
      ]);

      // The interrupted inspection ran again, as attempt 2 on the new worker, after a heartbeat timeout.
      const history = await handle.fetchHistory();
      const events = history.events ?? [];
      const firstInspection = events.find(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'inspectModuleContainers',
      );
      const startedEvent = events.find(
        (e) =>
          e.activityTaskStartedEventAttributes &&
          String(e.activityTaskStartedEventAttributes.scheduledEventId) === String(firstInspection?.eventId),
      );
      const started = startedEvent?.activityTaskStartedEventAttributes;
      assert.equal(started?.attempt, 2);
      assert.equal(started?.identity, second.identity);
      assert.equal(
        started?.lastFailure?.timeoutFailureInfo?.timeoutType,
        TimeoutType.TIMEOUT_TYPE_HEARTBEAT,
        JSON.stringify(started?.lastFailure),
      );
      const resumedAt = optionalTsToMs(startedEvent?.eventTime) ?? Date.now();
      t.diagnostic(`attempt 2 started ${((resumedAt - killedAt) / 1000).toFixed(1)} s after the kill`);

      // Seed and one push after assign; one stop of the predecessor; each successor container once.
      assert.deepEqual(await appliedPushes(node), [`${node}-1`, `${node}-2`]);
      const scheduled = scheduledActivities(history);
      assert.equal(scheduled.pushNode, 1);
      assert.equal(scheduled.stopModuleContainers, 1);
      const seen = await lifecycle.counts();
      assert.deepEqual(seen['caddy.edge'], { create: 1, start: 1, die: 1, stop: 1 });
      for (const container of ['route-proxy.edge', 'route-proxy.ca', 'route-proxy.dns'])
        assert.deepEqual(seen[container], { create: 1, start: 1 }, container);
    },
  );
});
