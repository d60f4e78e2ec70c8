import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { LocalMesh } from '../../mesh/local';
import { edgeFlip } from '../../workflows';
import type { EdgeFlipInputArg, RunbookStatus } from '../../workflows/contracts';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import {
  closedFailing,
  decide,
  decisionRefusal,
  httpBody,
  moduleContainers,
  statusWhen,
  stepState,
  waitingAt,
} from '../support/runbooks';

/** A controller slow to unassign on the listed nodes, so a test can act while a compensation runs. */
class SlowUnassignMesh extends LocalMesh {
  readonly slow = new Set<string>();

  override async unassign(module: string, node: string): Promise<void> {
    if (this.slow.has(node)) await new Promise((resolve) => setTimeout(resolve, 3_000));
    await super.unassign(module, node);
  }
}

/** When the predecessor's container started: the same value later means it was never stopped. */
async function predecessorStartedAt(world: RunbookWorld, node: string): Promise<string | undefined> {
  const info = await world.engine.inspect(`${node}.caddy.edge`);
  assert.equal(info?.State.Running, true, 'predecessor running');
  return info?.State.StartedAt;
}

/** Aborted: the successor is unassigned and gone, the predecessor untouched and still serving. */
async function assertAborted(
  world: RunbookWorld,
  { node, publicAddress }: EdgeFlipInputArg,
  status: RunbookStatus,
  startedAt?: string,
) {
  assert.equal(status.phase, 'aborted');
  assert.equal(status.waiting, null);
  assert.equal(stepState(status, 'unassign-successor'), 'compensated');
  assert.equal(stepState(status, 'stop-predecessor'), 'pending', 'the predecessor was never stopped');
  assert.equal(stepState(status, 'restart-predecessor'), undefined, 'nothing to restart');
  assert.equal(await predecessorStartedAt(world, node), startedAt, 'predecessor untouched');
  assert.match(await httpBody(publicAddress), /served by caddy/);
  assert.ok(!(await world.mesh.nodeState(node)).assigned.includes('route-proxy'), 'successor unassigned');
  assert.deepEqual(await moduleContainers(world.engine, node, 'route-proxy'), [], 'no successor container');
}

/** A world whose mesh is slow to unassign on the nodes a test names. */
const slowWorld = () => runbookWorld({ mesh: (stateDir) => new SlowUnassignMesh({ stateDir }) });

/** Seeds a node (`leftovers`: the incident, held at gate-apply) and records when its predecessor started. */
async function begin(world: RunbookWorld, leftovers: boolean) {
  const input = await seedEdgeFlip(world, { leftovers });
  const startedAt = await predecessorStartedAt(world, input.node);
  return { input, startedAt, handle: await world.start(edgeFlip, input) };
}

describe('edge-flip abort at each waiting point runs the right compensation (real Temporal, real Docker)', () => {
  it('cancel while held at gate-apply: predecessor untouched, successor unassigned, aborted', async () => {
    await using world = await slowWorld();
    const { input, startedAt, handle } = await begin(world, true);
    const held = await statusWhen(handle, waitingAt('gate-apply'));
    assert.equal(held.waiting?.verdict, 'held');

    await handle.cancel();
    const { cause, status } = await closedFailing(handle);
    assert.ok(cause instanceof CancelledFailure, String(cause));
    assert.equal(status.outcome, 'aborted (cancelled); compensations ran');
    assert.deepEqual(status.decisions, []);
    await assertAborted(world, input, status, startedAt);
  });

  it('decide abort at approve-stop-predecessor: the running successor is removed, predecessor untouched', async () => {
    await using world = await slowWorld();
    const { input, startedAt, handle } = await begin(world, false);
    await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    assert.equal(
      (await moduleContainers(world.engine, input.node, 'route-proxy')).length,
      3,
      'successor is up',
    );

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
    await assertAborted(world, input, status, startedAt);
  });

  it('cancel at approve-stop-predecessor: the running successor is removed, predecessor untouched', async () => {
    await using world = await slowWorld();
    const { input, startedAt, handle } = await begin(world, false);
    await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    assert.equal(
      (await moduleContainers(world.engine, input.node, 'route-proxy')).length,
      3,
      'successor is up',
    );

    await handle.cancel();
    const { cause, status } = await closedFailing(handle);
    assert.ok(cause instanceof CancelledFailure, String(cause));
    assert.equal(status.outcome, 'aborted (cancelled); compensations ran');
    await assertAborted(world, input, status, startedAt);
  });

  it('a decision sent while the abort compensates is refused: the runbook waits for nothing then', async () => {
    await using world = await slowWorld();
    const { input, startedAt, handle } = await begin(world, false);
    await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    world.mesh.slow.add(input.node);

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
    await assertAborted(world, input, status, startedAt);
  });
});
