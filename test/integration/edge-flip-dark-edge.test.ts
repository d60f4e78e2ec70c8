import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { acquireLock } from '../../mesh/local/lock';
import { edgeFlip } from '../../workflows';
import { portsOf, seedEdgeFlip, stagingOnlySuccessor } from '../support/edge-flip-seed';
import { runbookWorld } from '../support/runbook-world';
import { closedFailing, decide, statusWhen, stepState, waitingAt } from '../support/runbooks';

/** How long the test keeps the controller from answering; far longer than lighting the edge should take. */
const CONTROLLER_DOWN_MS = 90_000;

/** Polls the public address until the predecessor's own page answers; the moment it did, or undefined. */
async function servedByPredecessor(
  address: string,
  marker: string,
  timeoutMs: number,
): Promise<number | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const body = await fetch(`${address}/`, { signal: AbortSignal.timeout(1_000) })
      .then((r) => r.text())
      .catch(() => '');
    if (body.includes(marker)) return Date.now();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

describe('a dark edge is lit first, on a real Temporal dev server and the local mesh over real Docker', () => {
  it('the controller does not answer when probe-public fails: the predecessor serves again before any mesh call of the rollback, then the successor comes off once mesh answers', async (t) => {
    await using world = await runbookWorld();
    const seeded = await seedEdgeFlip(world);
    const input = {
      ...seeded,
      predecessorMarker: 'served by caddy',
      timings: { ...seeded.timings, probeDeadlineMs: 4_000 },
    };
    await world.mesh.defineModule(stagingOnlySuccessor(portsOf(input)));
    const handle = await world.start(edgeFlip, input);
    await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    await decide(handle, 'approve');

    // The controller stops answering while the names are already dark: every mesh verb times out.
    await statusWhen(handle, (s) => stepState(s, 'probe-public') === 'running');
    const controllerBack = await acquireLock(world.mesh.layout.controllerLock, { timeoutMs: 10_000 });
    let lit: number | undefined;
    try {
      lit = await servedByPredecessor(input.publicAddress, 'served by caddy', CONTROLLER_DOWN_MS);
    } finally {
      await controllerBack();
    }
    assert.ok(lit !== undefined, 'the predecessor served again while the controller did not answer');

    const { status } = await closedFailing(handle);
    assert.equal(status.phase, 'rolled-back', status.outcome);
    assert.equal(stepState(status, 'restart-predecessor'), 'compensated');
    const failedAt = Date.parse(status.steps.find((s) => s.name === 'probe-public')?.endedAt ?? '');
    t.diagnostic(`names dark after the failed probe for ${lit - failedAt} ms (controller not answering)`);
    assert.ok(
      !(await world.mesh.nodeState(input.node)).assigned.includes('route-proxy'),
      'successor unassigned',
    );
    assert.match(await (await fetch(`${input.publicAddress}/`)).text(), /served by caddy/);
  });
});
