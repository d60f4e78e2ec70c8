import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dataPathMove, edgeFlip } from '../../workflows';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { runbookWorld } from '../support/runbook-world';
import { statusWhen, stepState, waitingAt } from '../support/runbooks';

const locksNote = (s: { steps: { name: string; note?: string }[] }) =>
  s.steps.find((step) => step.name === 'locks')?.note ?? '';

describe('module locks: a move of a module waits for every runbook using it; edge flips share it (real Temporal)', () => {
  it('a move of route-proxy waits while an edge flip holds it, naming the flip; goes on once the flip is aborted', async () => {
    await using world = await runbookWorld();
    const aInput = await seedEdgeFlip(world, { leftovers: true });
    const a = await world.start(edgeFlip, aInput);
    await statusWhen(a, waitingAt('gate-apply'));
    // Never seeded: the move must not get as far as looking at its node.
    const second = world.nodeName();
    const b = await world.start(dataPathMove, moveOf('route-proxy', second));
    const waiting = await statusWhen(b, (s) => locksNote(s).startsWith('waits for'));
    assert.equal(
      locksNote(waiting),
      `waits for runbook-${aInput.node} (edge-flip caddy → route-proxy on ${aInput.node}) to finish`,
    );
    assert.equal(stepState(waiting, 'preflight'), 'pending', 'nothing else ran');

    await a.cancel();
    await assert.rejects(a.result());
    const moved = await statusWhen(b, (s) => stepState(s, 'locks') === 'done');
    assert.equal(locksNote(moved), `holds node-${second}, module-route-proxy`);
  });

  it('two edge flips of the same modules on two nodes run side by side: the flip changes nodes, not modules', async () => {
    await using world = await runbookWorld();
    const aInput = await seedEdgeFlip(world, { leftovers: true });
    const a = await world.start(edgeFlip, aInput);
    await statusWhen(a, waitingAt('gate-apply'));
    const second = world.nodeName();
    const b = await world.start(edgeFlip, { ...aInput, node: second });
    const moved = await statusWhen(b, (s) => stepState(s, 'locks') === 'done');
    assert.equal(
      locksNote(moved),
      `holds node-${second}, module-route-proxy (shared), module-caddy (shared)`,
    );
  });

  it('a holder terminated without releasing is noticed: the waiting runbook gets the lock', async () => {
    await using world = await runbookWorld();
    const aInput = await seedEdgeFlip(world, { leftovers: true });
    const a = await world.start(edgeFlip, aInput);
    await statusWhen(a, waitingAt('gate-apply'));
    const b = await world.start(dataPathMove, moveOf('caddy', world.nodeName()));
    await statusWhen(b, (s) => locksNote(s).startsWith('waits for'));
    await a.terminate('test: a runbook that never releases');
    await statusWhen(b, (s) => stepState(s, 'locks') === 'done', 60_000);
  });
});

function moveOf(module: string, node: string) {
  return { node, module, from: `/srv/${node}/a`, to: `/srv/${node}/b`, startedBy: 'alice' };
}
