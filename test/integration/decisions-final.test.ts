import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { hostRootFromMesh } from '../../activities';
import { dockerResolver } from '../../docker/endpoints';
import { edgeFlip } from '../../workflows';
import { decideUpdate, statusQuery } from '../../workflows/contracts';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { runbookWorld } from '../support/runbook-world';
import { updateAdmitted } from '../support/updates';
import { decide, decisionRefusal, statusWhen, waitingAt } from '../support/runbooks';
import { startTestWorker } from '../support/temporal';

describe('a recorded decision is final; four eyes takes no placeholder (real Temporal, real Docker)', () => {
  it('two decisions arriving together: the first is carried out, the second is refused naming it', async () => {
    await using world = await runbookWorld();
    const handle = await world.start(edgeFlip, await seedEdgeFlip(world, { leftovers: true }));
    const held = await statusWhen(handle, waitingAt('gate-apply'));
    const evidence = held.waiting?.evidence;
    // No worker: both Updates wait at the server and reach the runbook in one activation.
    await world.stopWorkers();
    const take = handle.executeUpdate(decideUpdate, {
      updateId: 'take-by-bob',
      args: [{ action: 'take', by: 'bob', evidence }],
    });
    const abort = handle.executeUpdate(decideUpdate, {
      updateId: 'abort-by-carol',
      args: [{ action: 'abort', by: 'carol', evidence }],
    });
    for (const id of ['take-by-bob', 'abort-by-carol'])
      await updateAdmitted(world.client, handle.workflowId, id);
    const second = await startTestWorker(
      world.taskQueue,
      { mesh: world.mesh, dockerFor: dockerResolver({}), hostRootOf: hostRootFromMesh(world.mesh) },
      { nodeQueues: { localMesh: world.stateDir } },
    );
    try {
      const outcomes = await Promise.allSettled([take, abort]);
      const accepted = outcomes.filter((o) => o.status === 'fulfilled');
      const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
      assert.equal(accepted.length, 1, `exactly one decision stands: ${JSON.stringify(outcomes)}`);
      assert.equal(refused.length, 1);
      const [error] = refused;
      assert.ok(error instanceof WorkflowUpdateFailedError, String(error));
      // The Web UI's Update dialog shows the failure's stack: a refusal carries its sentence only.
      assert.doesNotMatch(error.cause?.stack ?? '', /workflows\/|\.ts:\d+/);
      assert.match(
        error.cause?.message ?? '',
        /^A decision was already taken at gate-apply: (take by bob|abort by carol) at \d\d:\d\d:\d\d UTC; it is being carried out, so this one is not\./,
      );
      const status = await handle.query(statusQuery);
      assert.equal(status.decisions.length, 1);
      const late = await decisionRefusal(
        handle.executeUpdate(decideUpdate, {
          args: [{ gate: 'gate-apply', action: 'retry', by: 'dave', evidence }],
        }),
      );
      assert.match(late, /^Gate gate-apply was already decided: (take by bob|abort by carol) at /);
    } finally {
      await world.terminateOpenRunbooks();
      await second.stop();
    }
  });

  it('a decision sent without its gate on a look another decision already answered is refused naming that one', async () => {
    await using world = await runbookWorld();
    const handle = await world.start(edgeFlip, await seedEdgeFlip(world, { leftovers: true }));
    const held = await statusWhen(handle, waitingAt('gate-apply'));
    const evidence = held.waiting?.evidence;
    await decide(handle, 'take', 'gate-apply');
    const next = await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    // As the Web UI's Update dialog sends it: no gate, the evidence the operator was shown.
    const late = await decisionRefusal(
      handle.executeUpdate(decideUpdate, { args: [{ action: 'take', by: 'carol', evidence }] }),
    );
    const winner = next.decisions.find((d) => d.gate === 'gate-apply');
    assert.equal(
      late,
      `Gate gate-apply was already decided on evidence ${evidence}: take by ${winner?.by} at ${winner?.at.slice(11, 19)} UTC; the runbook now waits at approve-stop-predecessor.`,
    );
    await world.terminateOpenRunbooks();
  });

  it('at a four-eyes gate a placeholder or empty name is refused; the starter in other letter case too', async () => {
    await using world = await runbookWorld();
    const handle = await world.start(edgeFlip, await seedEdgeFlip(world, { startedBy: 'Alice' }));
    const waiting = await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    const evidence = waiting.waiting?.evidence;
    const send = (by: string) =>
      decisionRefusal(handle.executeUpdate(decideUpdate, { args: [{ action: 'approve', by, evidence }] }));
    assert.match(
      await send('your-name'),
      /^"your-name" names nobody, and approve-stop-predecessor needs four eyes/,
    );
    assert.match(await send('<your name>'), /names nobody/);
    assert.match(await send('  '), /^The decision is malformed: by must name who decides\.$/);
    assert.match(await send('alice'), /^alice started this runbook and may not also approve/);
    const status = await handle.query(statusQuery);
    assert.deepEqual(
      status.refused.map((r) => r.by),
      ['your-name', '<your name>', 'alice'],
      'refusals after acceptance are on record',
    );
    assert.equal(status.waiting?.gate, 'approve-stop-predecessor', 'nothing moved');
  });
});
