import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { dockerResolver } from '../../docker/endpoints';
import { LocalMesh } from '../../mesh/local';
import { seedEdgeScenario, type EdgeScenario } from '../../mesh/local/scenarios/edge-flip-incident';
import { runbookWorkflowId, type EdgeFlipInputArg, type RunbookStatus } from '../../workflows/contracts';
import { LocalWorld } from '../support/local-world';
import {
  closedFailing,
  decide,
  decisionRefusal,
  FAST_TIMINGS,
  freePort,
  httpBody,
  moduleContainers,
  statusWhen,
  stepState,
  terminateOpen,
  waitingAt,
} from '../support/runbooks';
import { startTestWorker, type TestWorker } from '../support/temporal';

/** A controller slow to unassign on the listed nodes, so a test can act while a compensation runs. */
class SlowUnassignMesh extends LocalMesh {
  readonly slow = new Set<string>();

  override async unassign(module: string, node: string): Promise<void> {
    if (this.slow.has(node)) await new Promise((resolve) => setTimeout(resolve, 3_000));
    await super.unassign(module, node);
  }
}

describe('edge-flip abort at each waiting point runs the right compensation (real Temporal, real Docker)', () => {
  let world: LocalWorld;
  let mesh: SlowUnassignMesh;
  let worker: TestWorker;
  const handles: WorkflowHandle[] = [];

  before(async () => {
    world = await LocalWorld.create();
    mesh = new SlowUnassignMesh({ stateDir: world.stateDir });
    worker = await startTestWorker({ mesh, dockerFor: dockerResolver({}) });
  });

  afterEach(() => terminateOpen(handles));

  after(async () => {
    await terminateOpen(handles);
    await worker?.stop();
    await world?.cleanup();
  });

  async function scenario(leftovers: boolean) {
    const node = world.nodeName();
    const seeded = await seedEdgeScenario(world.mesh, {
      node,
      predecessor: 'caddy',
      successor: 'route-proxy',
      publicPort: await freePort(),
      stagingPort: await freePort(),
      leftovers,
    });
    return { node, seeded };
  }

  async function start(node: string, seeded: EdgeScenario) {
    const input: EdgeFlipInputArg = {
      node,
      module: 'route-proxy',
      predecessor: 'caddy',
      ...seeded,
      startedBy: 'alice',
      timings: FAST_TIMINGS,
    };
    const handle = await worker.client.workflow.start('edgeFlip', {
      args: [input],
      taskQueue: worker.taskQueue,
      workflowId: runbookWorkflowId(node),
    });
    handles.push(handle);
    return handle;
  }

  /** When the predecessor's container started: the same value later means it was never stopped. */
  async function predecessorStartedAt(node: string): Promise<string | undefined> {
    const info = await world.engine.inspect(`${node}.caddy.edge`);
    assert.equal(info?.State.Running, true, 'predecessor running');
    return info?.State.StartedAt;
  }

  /** Aborted: the successor is unassigned and gone, the predecessor untouched and still serving. */
  async function assertAborted(
    node: string,
    seeded: EdgeScenario,
    status: RunbookStatus,
    startedAt?: string,
  ) {
    assert.equal(status.phase, 'aborted');
    assert.equal(status.waiting, null);
    assert.equal(stepState(status, 'unassign-successor'), 'compensated');
    assert.equal(stepState(status, 'stop-predecessor'), 'pending', 'the predecessor was never stopped');
    assert.equal(stepState(status, 'restart-predecessor'), undefined, 'nothing to restart');
    assert.equal(await predecessorStartedAt(node), startedAt, 'predecessor untouched');
    assert.match(await httpBody(seeded.publicAddress), /served by caddy/);
    assert.ok(!(await world.mesh.nodeState(node)).assigned.includes('route-proxy'), 'successor unassigned');
    assert.deepEqual(await moduleContainers(world.engine, node, 'route-proxy'), [], 'no successor container');
  }

  it('cancel while held at gate-apply: predecessor untouched, successor unassigned, aborted', async () => {
    const { node, seeded } = await scenario(true);
    const startedAt = await predecessorStartedAt(node);
    const handle = await start(node, seeded);
    const held = await statusWhen(handle, waitingAt('gate-apply'));
    assert.equal(held.waiting?.verdict, 'held');

    await handle.cancel();
    const { cause, status } = await closedFailing(handle);
    assert.ok(cause instanceof CancelledFailure, String(cause));
    assert.equal(status.outcome, 'aborted (cancelled); compensations ran');
    assert.deepEqual(status.decisions, []);
    await assertAborted(node, seeded, status, startedAt);
  });

  it('decide abort at approve-stop-predecessor: the running successor is removed, predecessor untouched', async () => {
    const { node, seeded } = await scenario(false);
    const startedAt = await predecessorStartedAt(node);
    const handle = await start(node, seeded);
    await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    assert.equal((await moduleContainers(world.engine, node, 'route-proxy')).length, 3, 'successor is up');

    await decide(handle, 'abort', 'approve-stop-predecessor');
    const { cause, status } = await closedFailing(handle);
    assert.ok(cause instanceof ApplicationFailure, String(cause));
    assert.equal(cause.type, 'Aborted');
    assert.equal(cause.message, 'aborted by bob at approve-stop-predecessor');
    assert.equal(status.outcome, 'aborted by bob at approve-stop-predecessor');
    assert.deepEqual(
      status.decisions.map((d) => [d.gate, d.action, d.by]),
      [['approve-stop-predecessor', 'abort', 'bob']],
    );
    await assertAborted(node, seeded, status, startedAt);
  });

  it('cancel at approve-stop-predecessor: the running successor is removed, predecessor untouched', async () => {
    const { node, seeded } = await scenario(false);
    const startedAt = await predecessorStartedAt(node);
    const handle = await start(node, seeded);
    await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    assert.equal((await moduleContainers(world.engine, node, 'route-proxy')).length, 3, 'successor is up');

    await handle.cancel();
    const { cause, status } = await closedFailing(handle);
    assert.ok(cause instanceof CancelledFailure, String(cause));
    assert.equal(status.outcome, 'aborted (cancelled); compensations ran');
    await assertAborted(node, seeded, status, startedAt);
  });

  it('a decision sent while the abort compensates is refused: the runbook waits for nothing then', async () => {
    const { node, seeded } = await scenario(false);
    const startedAt = await predecessorStartedAt(node);
    const handle = await start(node, seeded);
    await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    mesh.slow.add(node);

    await handle.cancel();
    const compensating = await statusWhen(handle, (s) => stepState(s, 'unassign-successor') === 'running');
    assert.equal(compensating.waiting, null, 'not waiting while compensating');
    assert.match(
      await decisionRefusal(decide(handle, 'approve', 'approve-stop-predecessor')),
      /^The runbook is not waiting for a decision/,
    );

    const { cause, status } = await closedFailing(handle);
    assert.ok(cause instanceof CancelledFailure, String(cause));
    assert.deepEqual(status.decisions, [], 'the late approval was not recorded');
    await assertAborted(node, seeded, status, startedAt);
  });
});
