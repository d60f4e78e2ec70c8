import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { edgeFlip } from '../../workflows';
import type { RunbookStatus } from '../../workflows/contracts';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { runbookWorld } from '../support/runbook-world';
import {
  decide,
  decisionRefusal,
  httpBody,
  isRunning,
  statusWhen,
  stepState,
  waitingAt,
} from '../support/runbooks';

describe('a gate waiting on failed containers watches them (real Temporal, real Docker)', () => {
  it('gate-apply waiting on an exited successor: started by hand, the wait changes before anyone decides, and a decision on the old evidence is refused', async () => {
    await using world = await runbookWorld();
    // Its edge container exits two seconds after every start.
    const input = await seedEdgeFlip(world, { successorFault: 'exits' });
    const { node } = input;
    const edge = `${node}.route-proxy.edge`;
    const handle = await world.start(edgeFlip, input);
    const exited = await statusWhen(
      handle,
      (s) => waitingAt('gate-apply')(s) && /has exited/.test(s.waiting?.reason ?? ''),
    );
    assert.equal(exited.waiting?.verdict, 'failed');

    // A new wait at gate-apply, the operators told at once (the reminder is sent as the wait begins).
    const changedFrom = (before: RunbookStatus) =>
      statusWhen(
        handle,
        (s) =>
          waitingAt('gate-apply')(s) &&
          s.waiting?.evidence !== before.waiting?.evidence &&
          s.waiting?.reminders === 1,
        30_000,
      );
    await world.engine.start(edge);
    const changed = await changedFrom(exited);
    const startedAt = (await world.engine.inspect(edge))?.State.StartedAt ?? '';
    const tookMs = Date.parse(changed.waiting?.since ?? '') - Date.parse(startedAt);
    console.log(
      `exited successor started by hand: ${tookMs} ms from Docker's start to the new verdict (its look waits for the container to settle)`,
    );
    const change = changed.waiting?.facts.find((f) => f.startsWith('changed while gate-apply waited'));
    assert.ok(change, JSON.stringify(changed.waiting?.facts));
    assert.match(change, new RegExp(`${edge} \\(\\w+\\): running.*Docker reported start of ${edge}`));
    assert.equal(changed.decisions.length, 0, 'nobody decided anything');

    // A retry sent on what the operator saw before is refused: the wait it answered is gone.
    const stale = await decisionRefusal(
      handle.executeUpdate('decide', {
        args: [{ action: 'retry', gate: 'gate-apply', by: 'bob', evidence: exited.waiting?.evidence }],
      }),
    );
    assert.match(stale, /evidence/, stale);

    // The look itself waited for the container to settle: it exited again. Started once more, the wait
    // follows it again, still before anyone decides.
    await world.engine.start(edge);
    const again = await changedFrom(changed);
    assert.equal(again.decisions.length, 0);
    for (const later of ['verify-successor', 'approve-stop-predecessor', 'stop-predecessor'])
      assert.equal(stepState(again, later), 'pending', `${later} never reached`);
    assert.equal(await isRunning(world.engine, `${node}.caddy.edge`), true);
    assert.match(await httpBody(input.publicAddress), /served by caddy/);

    await decide(handle, 'abort');
    const aborted = await handle.result().catch((e: unknown) => e);
    assert.ok(aborted instanceof Error, 'the runbook ended aborted');
  });
});
