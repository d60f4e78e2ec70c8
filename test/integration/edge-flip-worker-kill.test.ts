import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import type { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { BASE_IMAGE, LABEL } from '../../docker/engine';
import { edgeFlip } from '../../workflows';
import type { RunbookStatus, Timings } from '../../workflows/contracts';
import { scheduledActivities } from '../support/data-move';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { decide, statusWhen, waitingAt } from '../support/runbooks';
import { workerProcessOf } from '../support/temporal';

/**
 * The runbook survives its worker dying (docs/design.md §5, "Resumable"): the worker runs in a child
 * process, the test SIGKILLs it mid-runbook and starts another, and the runbook ends with every side
 * effect done exactly once — pushes counted in the node's journal, container starts and stops in Docker's
 * events.
 */

/** Bounds every wait; the activity-kill test waits out the 10 s heartbeat timeout once. */
const WAIT_MS = 180_000;
const TEST_TIMEOUT_MS = 600_000;
/** Long enough that the first worker is surely killed inside it, however loaded the machine. */
const STABILITY_WINDOW_MS = 10_000;

const { PendingActivityState, TimeoutType } = temporal.api.enums.v1;

/** Seeds the scenario on `node` and starts the runbook on the world's task queue, served by a worker process. */
async function begin(world: RunbookWorld, node: string, leftovers: boolean, timings: Partial<Timings> = {}) {
  const seeded = await seedEdgeFlip(world, { node, leftovers });
  const predecessor = await world.engine.inspect(`${node}.caddy.edge`);
  assert.equal(predecessor?.State.Running, true);
  const first = await world.spawnWorker();
  const handle = await world.start(edgeFlip, { ...seeded, timings: { ...seeded.timings, ...timings } });
  return { handle, first, predecessorStartedAt: predecessor?.State.StartedAt };
}

/** Push ids the node applied, in order, from its journal (one line per apply). */
async function appliedPushes(world: RunbookWorld, node: string): Promise<string[]> {
  const journal = await readFile(world.mesh.layout.journal(node), 'utf8');
  return journal
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' ')[1] ?? line);
}

const SENTINEL = 'events.sentinel';

/**
 * Counts Docker's lifecycle events on the node's containers from now on, until disposed. Live, not
 * `since`: the engine keeps only its last few hundred events, and healthchecks of other containers fill
 * that quickly.
 */
async function watchLifecycle(world: RunbookWorld, node: string) {
  const actions = ['create', 'start', 'stop', 'die', 'destroy'];
  const stream = (await world.engine.docker.getEvents({
    filters: JSON.stringify({ type: ['container'], event: actions, label: [`${LABEL.node}=${node}`] }),
  })) as Readable;
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
    /**
     * The counts so far, per container (`module.container`) and action: once a sentinel container of the
     * node, created and removed now, was seen removed (the engine sends its events in order).
     */
    async counts() {
      const sentinel = await world.engine.docker.createContainer({
        name: `${node}.${SENTINEL}`,
        Image: BASE_IMAGE,
        Cmd: ['true'],
        Labels: { [LABEL.node]: node },
      });
      await sentinel.remove();
      for (const deadline = Date.now() + 120_000; !counts[SENTINEL]?.destroy; await delay(50))
        assert.ok(Date.now() < deadline, 'Docker never sent the removal of the sentinel container');
      const { [SENTINEL]: _sentinel, ...containers } = counts;
      return containers;
    },
    [Symbol.dispose]: () => stream.destroy(),
  };
}

const stepStates = (status: RunbookStatus) => status.steps.map((step) => `${step.name}: ${step.state}`);

describe('edge-flip survives a SIGKILLed worker on a real dev server, local mesh and Docker', () => {
  it(
    'killed while waiting at the hold and again at the approval: new workers finish, nothing twice',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      await using world = await runbookWorld({ worker: 'none' });
      const node = world.nodeName();
      using lifecycle = await watchLifecycle(world, node);
      const { handle, first, predecessorStartedAt } = await begin(world, node, true);

      const held = await statusWhen(handle, waitingAt('gate-apply'), WAIT_MS);
      assert.equal(held.waiting?.verdict, 'held');
      await first.kill();
      const second = await world.spawnWorker();
      await decide(handle, 'take', 'gate-apply');

      await statusWhen(handle, waitingAt('approve-stop-predecessor'), WAIT_MS);
      const predecessor = await world.engine.inspect(`${node}.caddy.edge`);
      assert.equal(predecessor?.State.Running, true, 'predecessor untouched before approval');
      assert.equal(predecessor?.State.StartedAt, predecessorStartedAt, 'predecessor never restarted');
      await second.kill();
      const third = await world.spawnWorker();
      await decide(handle, 'approve', 'approve-stop-predecessor');

      const done: RunbookStatus = await handle.result();
      assert.equal(done.phase, 'completed', done.outcome);
      assert.deepEqual(stepStates(done), [
        'locks: done',
        'preflight: done',
        'assign-successor: done',
        'push: done',
        'gate-apply: done',
        'take: done',
        'verify-successor: done',
        'probe-successor: done',
        'approve-stop-predecessor: done',
        'recheck-successor: done',
        'stop-predecessor: done',
        'probe-public: done',
        'unassign-predecessor: done',
        'gate-clean: done',
      ]);
      assert.deepEqual(
        done.decisions.map((d) => `${d.gate}: ${d.action}`),
        ['gate-apply: take', 'approve-stop-predecessor: approve'],
      );

      // Seed, after assign, after take, after the predecessor's unassign: four pushes, each applied once.
      const pushes = [1, 2, 3, 4].map((n) => `${node}-${n}`);
      assert.deepEqual(await appliedPushes(world, node), pushes);
      assert.equal((await world.mesh.nodeState(node)).lastApply?.pushId, `${node}-4`);
      const history = await handle.fetchHistory();
      const scheduled = scheduledActivities(history);
      assert.equal(scheduled.pushNode, 3);
      assert.equal(scheduled.assignModule, 1);
      assert.equal(scheduled.takeModule, 1);
      assert.equal(scheduled.stopModuleContainers, 1);
      assert.equal(scheduled.unassignModule, 1, "the predecessor's unassign only; no compensation ran");

      // Docker's own record: the predecessor started once (seeding), stopped once and, unassigned, was
      // removed once; each successor container was created and started once.
      const seen = await lifecycle.counts();
      assert.deepEqual(seen['caddy.edge'], { create: 1, start: 1, die: 1, stop: 1, destroy: 1 });
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
      await using world = await runbookWorld({ worker: 'none' });
      const node = world.nodeName();
      using lifecycle = await watchLifecycle(world, node);
      const { handle, first, predecessorStartedAt } = await begin(world, node, false, {
        stabilityWindowMs: STABILITY_WINDOW_MS,
      });

      // Kill inside the inspection's stability window, as soon as the first worker runs it.
      const deadline = Date.now() + WAIT_MS;
      for (;;) {
        const { raw } = await handle.describe();
        const inspecting = raw.pendingActivities?.find(
          (a) =>
            a.activityType?.name === 'observeModuleContainers' &&
            a.state === PendingActivityState.PENDING_ACTIVITY_STATE_STARTED,
        );
        if (inspecting) {
          assert.equal(workerProcessOf(inspecting.lastWorkerIdentity), first.identity);
          break;
        }
        assert.ok(Date.now() < deadline, 'the gate never observed the containers');
        await delay(100);
      }
      await first.kill();
      const killedAt = Date.now();
      const second = await world.spawnWorker();

      await statusWhen(handle, waitingAt('approve-stop-predecessor'), WAIT_MS);
      const predecessor = await world.engine.inspect(`${node}.caddy.edge`);
      assert.equal(predecessor?.State.StartedAt, predecessorStartedAt, 'predecessor never restarted');
      await decide(handle, 'approve', 'approve-stop-predecessor');
      const done: RunbookStatus = await handle.result();
      assert.equal(done.phase, 'completed', done.outcome);
      assert.deepEqual(stepStates(done), [
        'locks: done',
        'preflight: done',
        'assign-successor: done',
        'push: done',
        'gate-apply: done',
        'take: skipped',
        'verify-successor: done',
        'probe-successor: done',
        'approve-stop-predecessor: done',
        'recheck-successor: done',
        'stop-predecessor: done',
        'probe-public: done',
        'unassign-predecessor: done',
        'gate-clean: done',
      ]);

      // The interrupted inspection ran again, as attempt 2 on the new worker, after a heartbeat timeout.
      const history = await handle.fetchHistory();
      const events = history.events ?? [];
      const firstInspection = events.find(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'observeModuleContainers',
      );
      const startedEvent = events.find(
        (e) =>
          e.activityTaskStartedEventAttributes &&
          String(e.activityTaskStartedEventAttributes.scheduledEventId) === String(firstInspection?.eventId),
      );
      const started = startedEvent?.activityTaskStartedEventAttributes;
      const heartbeatTimeout = firstInspection?.activityTaskScheduledEventAttributes?.heartbeatTimeout;
      assert.equal(optionalTsToMs(heartbeatTimeout), 10_000, 'a dead worker is noticed after 10 s, not 30 s');
      assert.equal(started?.attempt, 2);
      assert.equal(workerProcessOf(started?.identity), second.identity);
      assert.equal(
        started?.lastFailure?.timeoutFailureInfo?.timeoutType,
        TimeoutType.TIMEOUT_TYPE_HEARTBEAT,
        JSON.stringify(started?.lastFailure),
      );
      const resumedAt = optionalTsToMs(startedEvent?.eventTime) ?? Date.now();
      t.diagnostic(`attempt 2 started ${((resumedAt - killedAt) / 1000).toFixed(1)} s after the kill`);

      // Seed, one push after assign, one after the predecessor's unassign; one stop of the predecessor (then
      // its removal); each successor container once.
      assert.deepEqual(await appliedPushes(world, node), [`${node}-1`, `${node}-2`, `${node}-3`]);
      const scheduled = scheduledActivities(history);
      assert.equal(scheduled.pushNode, 2);
      assert.equal(scheduled.stopModuleContainers, 1);
      const seen = await lifecycle.counts();
      assert.deepEqual(seen['caddy.edge'], { create: 1, start: 1, die: 1, stop: 1, destroy: 1 });
      for (const container of ['route-proxy.edge', 'route-proxy.ca', 'route-proxy.dns'])
        assert.deepEqual(seen[container], { create: 1, start: 1 }, container);
    },
  );
});
