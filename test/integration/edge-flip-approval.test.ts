import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import { edgeFlip } from '../../workflows';
import type { RunbookStatus } from '../../workflows/contracts';
import { successorSpec } from '../../mesh/local/scenarios/edge-flip-incident';
import { portsOf, seedEdgeFlip } from '../support/edge-flip-seed';
import { runbookWorld } from '../support/runbook-world';
import { describe } from '../support/side-by-side';
import {
  closedFailing,
  decide,
  decisionRefusal,
  httpBody,
  isRunning,
  statusWhen,
  stepState,
  waitingAt,
} from '../support/runbooks';

/** How many container watches the runbook started so far (one per look of a watched gate or approval). */
async function watchesOf(handle: WorkflowHandle): Promise<number> {
  const { events } = await handle.fetchHistory();
  return (events ?? []).filter(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'watchModuleContainers',
  ).length;
}

/** Milliseconds from a Docker time (ISO, nanoseconds) to a workflow time (ISO). */
function msBetween(dockerTime: string, workflowTime: string): number {
  return Date.parse(workflowTime) - Date.parse(dockerTime);
}

describe('a waiting approval watches the successor it rests on (real Temporal, real Docker)', () => {
  it('a successor killed while the approval waits: the wait changes before anyone decides, an approval on the old evidence is refused, started again by hand the wait says so and, rechecked, it asks anew', async () => {
    await using world = await runbookWorld();
    const input = await seedEdgeFlip(world);
    const { node } = input;
    const handle = await world.start(edgeFlip, input);
    const asked = await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    const edge = `${node}.route-proxy.edge`;

    await world.engine.docker.getContainer(edge).kill();
    // Told at once: the reminder is sent as the new wait begins.
    const changed = await statusWhen(
      handle,
      (s) => waitingAt('recheck-successor')(s) && s.waiting?.reminders === 1,
    );
    const diedAt = (await world.engine.inspect(edge))?.State.FinishedAt ?? '';
    const tookMs = msBetween(diedAt, changed.waiting?.since ?? '');
    console.log(`killed successor: ${tookMs} ms from Docker's die to the new verdict`);
    assert.ok(changed.waiting?.reason.includes(edge), changed.waiting?.reason);
    assert.match(changed.waiting?.reason ?? '', /changed while the approval waited/);
    assert.notEqual(changed.waiting?.evidence, asked.waiting?.evidence, 'new evidence, new hash');
    assert.match(
      changed.steps.find((s) => s.name === 'approve-stop-predecessor')?.note ?? '',
      /not decided: the evidence changed while it waited/,
    );
    assert.equal(changed.decisions.length, 0, 'nobody decided anything');
    assert.equal(stepState(changed, 'stop-predecessor'), 'pending');
    assert.equal(await isRunning(world.engine, `${node}.caddy.edge`), true);
    assert.match(await httpBody(input.publicAddress), /served by caddy/);

    // An approval sent on what the operator saw before is refused: that evidence is false now.
    const stale = await decisionRefusal(
      handle.executeUpdate('decide', {
        args: [
          {
            action: 'approve',
            gate: 'approve-stop-predecessor',
            by: 'bob',
            evidence: asked.waiting?.evidence,
          },
        ],
      }),
    );
    assert.match(stale, /waiting at gate recheck-successor|approve is not an action/, stale);

    // Started by hand: the watched gate sees it run, then turn healthy, and says so, waiting for a recheck
    // (a gate that waited passes on a person's word only); the approval is then asked anew.
    await world.engine.start(edge);
    const startedAt = Date.now();
    const okNow = await statusWhen(
      handle,
      (s) => waitingAt('recheck-successor')(s) && s.waiting?.verdict === 'ok',
    );
    console.log(`started by hand: the wait said ok ${Date.now() - startedAt} ms later`);
    assert.match(okNow.waiting?.reason ?? '', /^It looks ok now: .*changed while recheck-successor waited/);
    assert.deepEqual(okNow.waiting?.actions, ['recheck', 'abort']);
    assert.equal(okNow.decisions.length, 0, 'nobody decided anything yet');
    await decide(handle, 'recheck', 'recheck-successor');
    const again = await statusWhen(
      handle,
      (s) => waitingAt('approve-stop-predecessor')(s) && s.waiting?.since !== asked.waiting?.since,
    );
    assert.notEqual(again.waiting?.evidence, asked.waiting?.evidence);
    await decide(handle, 'approve', 'approve-stop-predecessor');
    const done: RunbookStatus = await handle.result();
    assert.equal(done.phase, 'completed', done.outcome);
    assert.deepEqual(
      done.decisions.map((d) => `${d.gate}: ${d.action}`),
      ['recheck-successor: recheck', 'approve-stop-predecessor: approve'],
    );
  });

  it('a crash-looping successor (restart policy always, no healthcheck) is never offered for approval as stable: the wait changes at its first crash', async () => {
    await using world = await runbookWorld();
    const input = await seedEdgeFlip(world);
    const { node } = input;
    const ports = portsOf(input);
    // Serves its staging page, then crashes after a few seconds, every time: past gate-apply's first look.
    const spec = successorSpec('route-proxy', ports);
    const crash = `mkdir -p /www && echo "served by route-proxy" > /www/index.html && httpd -p 127.0.0.1:${ports.stagingPort} -h /www && sleep 4 && exit 1`;
    await world.mesh.defineModule({
      ...spec,
      containers: spec.containers.map((c) => {
        if (c.name !== 'edge') return c;
        const { healthcheck: _none, ...rest } = c;
        return { ...rest, command: ['sh', '-c', crash] };
      }),
    });
    const edge = `${node}.route-proxy.edge`;
    const handle = await world.start(edgeFlip, input);
    // The local mesh sets no restart policy; a real controller's (here set as soon as it exists) restarts it.
    for (const deadline = Date.now() + 120_000; !(await world.engine.inspect(edge));) {
      assert.ok(Date.now() < deadline, `${edge} was never created`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await world.engine.docker.getContainer(edge).update({ RestartPolicy: { Name: 'always' } });

    const judged = await statusWhen(
      handle,
      (s) => s.waiting?.gate === 'recheck-successor' || s.waiting?.gate === 'verify-successor',
    );
    const restarted = await world.engine.inspect(edge);
    assert.ok((restarted?.RestartCount ?? 0) >= 1, 'it crashed and was restarted');
    assert.match(judged.waiting?.reason ?? '', /restarted \d+ times?|has exited|is restarting/);
    assert.equal(stepState(judged, 'stop-predecessor'), 'pending');
    assert.equal(judged.decisions.length, 0, 'nobody was asked to approve what is already false');
    if (judged.waiting?.gate === 'recheck-successor') {
      const tookMs = msBetween(restarted?.State.FinishedAt ?? '', judged.waiting.since);
      console.log(`crash-looping successor: ${tookMs} ms from its crash (Docker’s die) to the new verdict`);
    }
    // Each crash changes the waiting gate's look, but after four quick looks its watch pauses (a minute,
    // doubling): 30 s of a crash loop (a die and a start every 4 to 8 s) adds at most four looks.
    const watchesBefore = await watchesOf(handle);
    await new Promise((resolve) => setTimeout(resolve, 30_000));
    const looks = (await watchesOf(handle)) - watchesBefore;
    console.log(`crash-looping successor: ${looks} looks in 30 s while the gate waited`);
    assert.ok(looks <= 4, `${looks} looks in 30 s`);
    assert.equal(await isRunning(world.engine, `${node}.caddy.edge`), true);
    // An abort, not a decision: the crash loop keeps changing the wait (and its evidence) meanwhile.
    await handle.cancel();
    const { status } = await closedFailing(handle);
    assert.equal(status.phase, 'aborted', status.outcome);
  });
});
