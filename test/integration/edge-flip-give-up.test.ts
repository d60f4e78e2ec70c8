import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { edgeFlip } from '../../workflows';
import type { EdgeFlipInputArg, RunbookStatus } from '../../workflows/contracts';
import { OnePushMisreported } from '../support/one-push-misreported';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
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

type World = RunbookWorld<OnePushMisreported>;

const world = (): Promise<World> =>
  runbookWorld({ mesh: (stateDir) => new OnePushMisreported({ stateDir }) });

/**
 * An edge flip that flipped: route-proxy serves every name, and the clean push removed caddy's containers.
 * That push is misreported, so gate-clean waits; an abort there unwinds reassign-predecessor first.
 */
async function flippedAndWaitingAtGateClean(w: World) {
  w.mesh.after = 'caddy';
  const input = await seedEdgeFlip(w);
  const handle = await w.start(edgeFlip, input);
  await statusWhen(handle, waitingAt('approve-stop-predecessor'));
  await decide(handle, 'approve');
  await statusWhen(handle, waitingAt('gate-clean'));
  assert.deepEqual(await moduleContainers(w.engine, input.node, 'caddy'), [], 'the clean push removed caddy');
  assert.match(await httpBody(input.publicAddress), /served by route-proxy/);
  return { input, handle };
}

/** The successor serves the public names, its containers running as the flip left them. */
async function successorServes(w: World, { node, publicAddress }: EdgeFlipInputArg): Promise<void> {
  assert.match(await httpBody(publicAddress), /served by route-proxy/);
  assert.equal(await isRunning(w.engine, `${node}.route-proxy.edge`), true);
  assert.ok((await w.mesh.nodeState(node)).assigned.includes('route-proxy'), 'route-proxy still assigned');
}

describe('a give-up ends the undo, and an undo never stops a serving successor for a predecessor that is gone (real Temporal, real Docker)', () => {
  it('give-up at reassign-predecessor: restart-predecessor and unassign-successor do not run, the names stay served, the run ends rolled-back-failed and the node needs clearing', async () => {
    await using w = await world();
    const { input, handle } = await flippedAndWaitingAtGateClean(w);
    w.mesh.refusing.add('assign caddy');
    await decide(handle, 'abort', 'gate-clean');

    const stuck = await statusWhen(handle, waitingAt('reassign-predecessor'));
    assert.deepEqual(stuck.waiting?.actions, ['retry', 'give-up']);
    await decide(handle, 'give-up', 'reassign-predecessor');

    // Before: the next undo step stopped route-proxy and took it off, and no name answered.
    const ended = await statusWhen(
      handle,
      (s) => !['running', 'waiting'].includes(s.phase) || waitingAt('restart-predecessor')(s),
    );
    assert.equal(ended.phase, 'failed', JSON.stringify(ended.waiting ?? ended.outcome));
    await successorServes(w, input);
    assert.match(
      stuck.waiting?.reason ?? '',
      /give-up leaves it undone and ends the undo here \(restart-predecessor, unassign-successor will not run\)/,
    );
    const { cause, status } = await closedFailing(handle);
    assert.ok(cause instanceof ApplicationFailure, String(cause));
    assert.equal(cause.type, 'RollbackFailed');
    assert.equal(stepState(status, 'reassign-predecessor'), 'failed');
    for (const step of ['restart-predecessor', 'unassign-successor']) {
      const shown = status.steps.find((s) => s.name === step);
      assert.equal(shown?.state, 'skipped', step);
      assert.match(
        shown?.note ?? '',
        new RegExp(
          `^not run: bob gave up reassign-predecessor, which ends the undo .*mesh runbook clear ${input.node}`,
        ),
      );
    }
    assert.match(
      status.outcome ?? '',
      /rollback failed: reassign-predecessor: .*; not run after the give-up: restart-predecessor, unassign-successor$/,
    );

    // The node is left to a person: the next runbook there is refused until it is cleared.
    w.mesh.refusing.clear();
    const next = await w.start(edgeFlip, input);
    const refused = await closedFailing(next);
    assert.ok(refused.cause instanceof ApplicationFailure, String(refused.cause));
    assert.equal(refused.cause.type, 'NodeNeedsClearing', refused.cause.message);
    await successorServes(w, input);
  });

  it('caddy gone and the controller refusing pushes: restart-predecessor leaves route-proxy serving and says so, on every retry; once caddy can come back, a retry restores it', async () => {
    await using w = await world();
    const { input, handle } = await flippedAndWaitingAtGateClean(w);
    w.mesh.refusing.add('push');
    await decide(handle, 'abort', 'gate-clean');

    const stuck = (): Promise<RunbookStatus> =>
      statusWhen(handle, (s) => waitingAt('restart-predecessor')(s) || s.phase !== 'running');
    const first = await stuck();
    assert.equal(first.waiting?.gate, 'restart-predecessor', first.outcome);
    assert.equal(stepState(first, 'reassign-predecessor'), 'compensated');
    assert.match(
      first.waiting?.reason ?? '',
      /caddy cannot be started on \S+: \S+\.caddy\.edge is gone and a push to bring caddy back failed \(.*refuses push.*\); route-proxy is left as it is, nothing of it stopped or taken off \(it serves: 3\/3 names answered/,
    );
    await successorServes(w, input);

    // Run again on the same evidence, it looks again, and again leaves the successor alone.
    await decide(handle, 'retry', 'restart-predecessor');
    const second = await statusWhen(
      handle,
      (s) => waitingAt('restart-predecessor')(s) && s.waiting?.since !== first.waiting?.since,
    );
    assert.match(second.waiting?.reason ?? '', /route-proxy is left as it is/);
    await successorServes(w, input);

    // The controller answers again: the retry's push brings caddy back, and only then is route-proxy stopped.
    w.mesh.refusing.clear();
    await decide(handle, 'retry', 'restart-predecessor');
    const { status } = await closedFailing(handle);
    assert.equal(status.phase, 'aborted', status.outcome);
    assert.equal(stepState(status, 'restart-predecessor'), 'compensated');
    assert.equal(stepState(status, 'unassign-successor'), 'compensated');
    assert.match(await httpBody(input.publicAddress), /served by caddy/);
    assert.deepEqual(await moduleContainers(w.engine, input.node, 'route-proxy'), []);
  });
});
