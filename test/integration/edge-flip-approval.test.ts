import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { edgeFlip } from '../../workflows';
import type { RunbookStatus } from '../../workflows/contracts';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { runbookWorld } from '../support/runbook-world';
import { decide, httpBody, isRunning, statusWhen, stepState, waitingAt } from '../support/runbooks';

describe('an approval is not a blank cheque: the successor is verified again right after it (real Temporal, real Docker)', () => {
  it('a successor container that stopped while the approval waited: the runbook waits again, the predecessor keeps serving; once fixed it asks anew', async () => {
    await using world = await runbookWorld();
    /** As an operator would: started by hand, and healthy again, before asking the runbook to look. */
    const healthy = async (name: string) => {
      for (let tries = 0; (await world.engine.inspect(name))?.State.Health?.Status !== 'healthy'; tries++) {
        assert.ok(tries < 150, `${name} never turned healthy`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    const input = await seedEdgeFlip(world);
    const { node } = input;
    const handle = await world.start(edgeFlip, input);
    const asked = await statusWhen(handle, waitingAt('approve-stop-predecessor'));

    // Hours may pass between the evidence and the approval: here the successor's edge stops meanwhile.
    const edge = `${node}.route-proxy.edge`;
    await world.engine.stop(edge, 1);
    await decide(handle, 'approve', 'approve-stop-predecessor');
    const changed = await statusWhen(handle, waitingAt('recheck-successor'));
    assert.notEqual(changed.waiting?.verdict, 'ok');
    assert.ok(changed.waiting?.reason.includes(edge), changed.waiting?.reason);
    assert.equal(stepState(changed, 'stop-predecessor'), 'pending', 'the approval alone stops nothing');
    assert.equal(await isRunning(world.engine, `${node}.caddy.edge`), true);
    assert.match(await httpBody(input.publicAddress), /served by caddy/);

    // Fixed, rechecked: the runbook asks for the approval again, on the new evidence.
    await world.engine.start(edge);
    await healthy(edge);
    await decide(handle, 'recheck', 'recheck-successor');
    const again = await statusWhen(
      handle,
      (s) => waitingAt('approve-stop-predecessor')(s) && s.waiting?.since !== asked.waiting?.since,
    );
    assert.notEqual(again.waiting?.evidence, undefined);
    assert.equal(await isRunning(world.engine, `${node}.caddy.edge`), true, 'still the predecessor serving');
    await decide(handle, 'approve', 'approve-stop-predecessor');
    const done: RunbookStatus = await handle.result();
    assert.equal(done.phase, 'completed', done.outcome);
    assert.deepEqual(
      done.decisions.map((d) => `${d.gate}: ${d.action}`),
      [
        'approve-stop-predecessor: approve',
        'recheck-successor: recheck',
        'approve-stop-predecessor: approve',
      ],
    );
  });
});
