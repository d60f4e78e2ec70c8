import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { edgeFlip } from '../../workflows';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { runbookWorld } from '../support/runbook-world';
import { statusWhen, stepState, waitingAt } from '../support/runbooks';

const locksNote = (s: { steps: { name: string; note?: string }[] }) =>
  s.steps.find((step) => step.name === 'locks')?.note ?? '';

describe('a second runbook touching the same module waits for the first (module locks, real Temporal)', () => {
  it('waits while the first holds route-proxy, naming it; goes on once the first is aborted', async () => {
    await using world = await runbookWorld();
    const aInput = await seedEdgeFlip(world, { leftovers: true });
    const a = await world.start(edgeFlip, aInput);
    await statusWhen(a, waitingAt('gate-apply'));
    // Never seeded: the second runbook must not get as far as looking at its node.
    const second = world.nodeName();
    const b = await world.start(edgeFlip, { ...aInput, node: second });
    const waiting = await statusWhen(b, (s) => locksNote(s).startsWith('waits for'));
    assert.equal(
      locksNote(waiting),
      `waits for runbook-${aInput.node} (edge-flip caddy → route-proxy on ${aInput.node}) to finish`,
    );
    assert.equal(stepState(waiting, 'preflight'), 'pending', 'nothing else ran');

    await a.cancel();
    await assert.rejects(a.result());
    const moved = await statusWhen(b, (s) => stepState(s, 'locks') === 'done');
    assert.equal(locksNote(moved), `holds node-${second}, module-route-proxy, module-caddy`);
  });

  it('a holder terminated without releasing is noticed: the waiting runbook gets the lock', async () => {
    await using world = await runbookWorld();
    const aInput = await seedEdgeFlip(world, { leftovers: true });
    const a = await world.start(edgeFlip, aInput);
    await statusWhen(a, waitingAt('gate-apply'));
    const b = await world.start(edgeFlip, { ...aInput, node: world.nodeName() });
    await statusWhen(b, (s) => locksNote(s).startsWith('waits for'));
    await a.terminate('test: a runbook that never releases');
    await statusWhen(b, (s) => stepState(s, 'locks') === 'done', 60_000);
  });
});
