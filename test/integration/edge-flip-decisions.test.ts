import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { edgeFlip } from '../../workflows';
import { decideUpdate, statusQuery, type Decision } from '../../workflows/contracts';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { runbookWorld } from '../support/runbook-world';
import {
  closedFailing,
  decide,
  decisionRefusal,
  isRunning,
  statusWhen,
  waitingAt,
} from '../support/runbooks';

describe('edge-flip refuses decisions and runbooks it is not waiting for (real Temporal, real Docker)', () => {
  it('a decision the runbook is not waiting for is refused with a clear message and changes nothing', async () => {
    await using world = await runbookWorld();
    const input = await seedEdgeFlip(world, { leftovers: true });
    const handle = await world.start(edgeFlip, input);
    const held = await statusWhen(handle, waitingAt('gate-apply'));
    assert.equal(held.waiting?.verdict, 'held');

    assert.equal(
      await decisionRefusal(decide(handle, 'approve')),
      'approve is not an action at gate gate-apply (held); choose one of: take, retry, recheck, abort.',
    );
    assert.equal(
      await decisionRefusal(decide(handle, 'take', 'approve-stop-predecessor')),
      'The runbook is waiting at gate gate-apply, not approve-stop-predecessor; send the decision for gate-apply.',
    );
    const malformed = { action: 'take' } as Decision; // no `by`: the UI can send anything
    assert.match(
      await decisionRefusal(handle.executeUpdate(decideUpdate, { args: [malformed] })),
      /^The decision is malformed: .+\.$/,
    );

    const unaffected = await handle.query(statusQuery);
    assert.equal(unaffected.phase, 'waiting');
    assert.deepEqual(unaffected.waiting, held.waiting, 'still waiting at the same gate since the same time');
    assert.deepEqual(unaffected.decisions, [], 'no decision recorded');
    assert.equal(await isRunning(world.engine, `${input.node}.caddy.edge`), true);

    // Accepted; while the runbook takes, pushes and gates again, it waits for nothing.
    await decide(handle, 'take', 'gate-apply');
    assert.match(
      await decisionRefusal(decide(handle, 'take')),
      /^The runbook is not waiting for a decision \(it is at step [a-z-]+\)\.$/,
    );

    const approval = await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    assert.equal(
      await decisionRefusal(decide(handle, 'take')),
      'take is not an action at gate approve-stop-predecessor (approval); choose one of: approve, abort.',
    );
    const recorded = (await handle.query(statusQuery)).decisions;
    assert.deepEqual(recorded, approval.decisions);
    assert.deepEqual(
      recorded.map((d) => [d.gate, d.action, d.by]),
      [['gate-apply', 'take', 'bob']],
    );

    await decide(handle, 'approve');
    assert.equal((await handle.result()).phase, 'completed');
    // A closed runbook takes no decision at all: Temporal refuses the Update before any validator runs, so
    // no worker is needed (a query of the closed run would have one replay its whole history first).
    await world.stopWorkers();
    const late = { action: 'take', gate: 'gate-apply', by: 'bob' } as Decision;
    await assert.rejects(
      handle.executeUpdate(decideUpdate, { args: [late] }),
      /workflow execution already completed/i,
    );
  });

  it('a second runbook on the same node is refused while one runs; once it ended the node is free again', async () => {
    await using world = await runbookWorld();
    const input = await seedEdgeFlip(world, { leftovers: true });
    const first = await world.start(edgeFlip, input);
    const held = await statusWhen(first, waitingAt('gate-apply'));

    const byCarol = { ...input, startedBy: 'carol' };
    await assert.rejects(world.start(edgeFlip, byCarol), WorkflowExecutionAlreadyStartedError);
    const unaffected = await first.query(statusQuery);
    assert.equal(unaffected.startedBy, 'alice');
    assert.deepEqual(unaffected.waiting, held.waiting);
    assert.equal((await first.describe()).runId, first.firstExecutionRunId, 'still the first run');

    await first.cancel();
    assert.ok((await closedFailing(first)).cause instanceof CancelledFailure);

    const second = await world.start(edgeFlip, byCarol);
    const again = await statusWhen(second, waitingAt('gate-apply'));
    assert.equal(again.startedBy, 'carol');
    await second.cancel();
    assert.equal((await closedFailing(second)).status.phase, 'aborted');
  });
});
