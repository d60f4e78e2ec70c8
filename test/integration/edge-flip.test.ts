import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { edgeFlip } from '../../workflows';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { runbookWorld } from '../support/runbook-world';
import { decide, statusWhen, stepState, waitingAt } from '../support/runbooks';

describe('edge-flip runbook on a real Temporal dev server and the local mesh over real Docker', () => {
  it('happy path: verifies the successor, waits for approval, stops the predecessor, ends completed', async () => {
    await using world = await runbookWorld();
    const input = await seedEdgeFlip(world);
    const handle = await world.start(edgeFlip, input);
    const { node } = input;
    const waiting = await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    assert.equal(waiting.waiting?.verdict, 'approval');
    assert.equal(stepState(waiting, 'take'), 'skipped');
    assert.equal(
      (await world.engine.inspect(`${node}.caddy.edge`))?.State.Running,
      true,
      'predecessor untouched before approval',
    );
    await decide(handle, 'approve', 'approve-stop-predecessor');
    const done = await handle.result();
    assert.equal(done.phase, 'completed');
    // The flip ends clean: the predecessor is unassigned, so the last push removed its containers.
    assert.equal(await world.engine.inspect(`${node}.caddy.edge`), undefined);
    assert.ok(!(await world.mesh.nodeState(node)).assigned.includes('caddy'));
    assert.deepEqual(
      ['unassign-predecessor', 'gate-clean'].map((step) => stepState(done, step)),
      ['done', 'done'],
    );
  });

  it('incident replay: waits at the hold without touching the predecessor, completes after take', async () => {
    await using world = await runbookWorld();
    const input = await seedEdgeFlip(world, { leftovers: true });
    const handle = await world.start(edgeFlip, input);
    const { node } = input;
    const held = await statusWhen(handle, waitingAt('gate-apply'));
    assert.equal(held.waiting?.verdict, 'held');
    assert.match(held.waiting?.reason ?? '', /route-proxy is assigned to .* but not taken/);
    assert.ok(held.waiting?.actions.includes('take'));
    assert.equal((await world.engine.inspect(`${node}.caddy.edge`))?.State.Running, true);
    assert.equal(
      await world.engine.inspect(`${node}.route-proxy.edge`),
      undefined,
      'no successor container while held',
    );
    await decide(handle, 'take');
    await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    await decide(handle, 'approve');
    assert.equal((await handle.result()).phase, 'completed');
  });
});
