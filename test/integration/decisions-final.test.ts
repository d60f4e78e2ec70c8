import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, Connection, WorkflowUpdateFailedError } from '@temporalio/client';
import { dockerResolver } from '../../docker/endpoints';
import { startRunbook } from '../../client/start-runbook';
import { edgeFlip } from '../../workflows';
import { decideUpdate, statusQuery } from '../../workflows/contracts';
import { seededEdgeFlipInput } from '../support/edge-flip-start';
import { LocalWorld } from '../support/local-world';
import { decisionRefusal, statusWhen, terminateOpen, waitingAt } from '../support/runbooks';
import { harnessTarget, startTestWorker } from '../support/temporal';

describe('a recorded decision is final; four eyes takes no placeholder (real Temporal, real Docker)', () => {
  let world: LocalWorld;
  before(async () => {
    world = await LocalWorld.create();
  });
  after(() => world.cleanup());

  it('two decisions arriving together: the first is carried out, the second is refused naming it', async () => {
    const node = world.nodeName();
    const input = await seededEdgeFlipInput(world.mesh, node, { leftovers: true });
    const deps = { mesh: world.mesh, dockerFor: dockerResolver({}) };
    const first = await startTestWorker(deps);
    const connection = await Connection.connect({ address: harnessTarget().address });
    const client = new Client({ connection, namespace: harnessTarget().namespace });
    const handle = await startRunbook(client, edgeFlip, input, { taskQueue: first.taskQueue });
    try {
      const held = await statusWhen(handle, waitingAt('gate-apply'));
      const evidence = held.waiting?.evidence;
      // No worker: both Updates wait at the server and reach the runbook in one activation.
      await first.stop();
      const take = handle.executeUpdate(decideUpdate, { args: [{ action: 'take', by: 'bob', evidence }] });
      const abort = handle.executeUpdate(decideUpdate, {
        args: [{ action: 'abort', by: 'carol', evidence }],
      });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const second = await startTestWorker(deps, first.taskQueue);
      try {
        const outcomes = await Promise.allSettled([take, abort]);
        const accepted = outcomes.filter((o) => o.status === 'fulfilled');
        const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
        assert.equal(accepted.length, 1, `exactly one decision stands: ${JSON.stringify(outcomes)}`);
        assert.equal(refused.length, 1);
        const [error] = refused;
        assert.ok(error instanceof WorkflowUpdateFailedError, String(error));
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
        await terminateOpen([handle]);
        await second.stop();
      }
    } finally {
      await terminateOpen([handle]);
      await connection.close();
    }
  });

  it('at a four-eyes gate a placeholder or empty name is refused; the starter in other letter case too', async () => {
    const node = world.nodeName();
    const input = await seededEdgeFlipInput(world.mesh, node, { startedBy: 'Alice' });
    const worker = await startTestWorker({ mesh: world.mesh, dockerFor: dockerResolver({}) });
    const handle = await startRunbook(worker.client, edgeFlip, input, { taskQueue: worker.taskQueue });
    try {
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
    } finally {
      await terminateOpen([handle]);
      await worker.stop();
    }
  });
});
