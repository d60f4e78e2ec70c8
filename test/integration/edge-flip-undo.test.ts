import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { OnePushMisreported } from '../support/one-push-misreported';
import { edgeFlip } from '../../workflows';
import { portsOf, seedEdgeFlip, stagingOnlySuccessor } from '../support/edge-flip-seed';
import { runbookWorld } from '../support/runbook-world';
import {
  closedFailing,
  decide,
  httpBody,
  isRunning,
  moduleContainers,
  statusWhen,
  stepState,
  waitingAt,
} from '../support/runbooks';

const world = () => runbookWorld({ mesh: (stateDir) => new OnePushMisreported({ stateDir }) });

describe('edge-flip undo steps judge what they did and put back what the flip changed (real Temporal, real Docker)', () => {
  it('the clean push misreported: gate-clean waits; abort reassigns the predecessor, which serves again', async () => {
    await using w = await world();
    w.mesh.after = 'caddy';
    const input = await seedEdgeFlip(w);
    const { node } = input;
    const handle = await w.start(edgeFlip, input);
    await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    await decide(handle, 'approve');

    const unclean = await statusWhen(handle, waitingAt('gate-clean'));
    assert.equal(unclean.waiting?.verdict, 'drift', unclean.waiting?.reason);
    assert.equal(stepState(unclean, 'unassign-predecessor'), 'done');
    await decide(handle, 'abort', 'gate-clean');

    const { cause, status } = await closedFailing(handle);
    assert.ok(cause instanceof ApplicationFailure, String(cause));
    assert.equal(status.phase, 'aborted', status.outcome);
    assert.equal(stepState(status, 'reassign-predecessor'), 'compensated');
    assert.equal(stepState(status, 'restart-predecessor'), 'compensated');
    const assigned = (await w.mesh.nodeState(node)).assigned;
    assert.ok(assigned.includes('caddy'), `caddy assigned again: ${assigned.join(', ')}`);
    assert.ok(!assigned.includes('route-proxy'), 'route-proxy taken off');
    assert.equal(await isRunning(w.engine, `${node}.caddy.edge`), true);
    assert.match(await httpBody(input.publicAddress), /served by caddy/);
    assert.deepEqual(await moduleContainers(w.engine, node, 'route-proxy'), []);
  });

  it("the rollback's removal push misreported: the restart is judged, not trusted, and waits naming it while the predecessor serves", async () => {
    await using w = await world();
    w.mesh.after = 'route-proxy';
    const input = await seedEdgeFlip(w);
    const { node } = input;
    await w.mesh.defineModule(stagingOnlySuccessor(portsOf(input)));
    const handle = await w.start(edgeFlip, {
      ...input,
      timings: { ...input.timings, probeDeadlineMs: 4_000 },
    });
    await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    await decide(handle, 'approve');

    const stuck = await statusWhen(handle, waitingAt('restart-predecessor'));
    assert.deepEqual(stuck.waiting?.actions, ['retry', 'give-up']);
    assert.match(stuck.waiting?.reason ?? '', /the successor did not come off cleanly \(.*applied/);
    assert.equal(await isRunning(w.engine, `${node}.caddy.edge`), true, 'the predecessor was started anyway');
    assert.match(await httpBody(input.publicAddress), /served by caddy/);

    await decide(handle, 'retry', 'restart-predecessor');
    const { status } = await closedFailing(handle);
    assert.equal(status.phase, 'rolled-back', status.outcome);
    assert.equal(stepState(status, 'restart-predecessor'), 'compensated');
    assert.match(await httpBody(input.publicAddress), /served by caddy/);
  });
});
