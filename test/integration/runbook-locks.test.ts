import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout } from 'node:timers/promises';
import type { WorkflowHandle } from '@temporalio/client';
import { dataPathMove, edgeFlip } from '../../workflows';
import { statusQuery } from '../../workflows/contracts';
import { lockKeeperId, lockStateQuery, releaseLocks } from '../../workflows/lock';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { FAST_TIMINGS, statusWhen, stepState, waitingAt } from '../support/runbooks';

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
    await statusWhen(b, (s) => stepState(s, 'locks') === 'done');
  });
});

describe('locks survive their keeper: waiters ask again, the runbooks say who holds (real Temporal)', () => {
  it('a keeper terminated while one runbook holds and one waits: a newcomer waits, the waiter gets the locks once the holder ends', async () => {
    await using world = await runbookWorld();
    const aInput = await seedEdgeFlip(world, { leftovers: true });
    const a = await world.start(edgeFlip, aInput);
    await statusWhen(a, waitingAt('gate-apply'));
    const bNode = world.nodeName();
    const b = await world.start(dataPathMove, moveOf('route-proxy', bNode));
    await statusWhen(b, (s) => locksNote(s).startsWith('waits for'));
    await keeperOf(world).terminate('test: the lock keeper is lost');

    // The newcomer starts a keeper afresh; it must learn that a holds, and that b waits before c.
    const c = await world.start(dataPathMove, moveOf('route-proxy', world.nodeName()));
    // b, older, has reserved route-proxy for itself: c waits behind it.
    const cWaits = await statusWhen(c, (s) => locksNote(s).startsWith('waits for'));
    assert.equal(
      locksNote(cWaits),
      `waits for ${b.workflowId} (data-path-move of route-proxy on ${bNode}) to finish`,
    );
    await setTimeout(3 * ASK_AGAIN_MS);
    assert.equal(stepState(await c.query(statusQuery), 'locks'), 'running', 'c never got what a holds');
    assert.equal(stepState(await b.query(statusQuery), 'locks'), 'running', 'b never got what a holds');
    const kept = await keeperOf(world).query(lockStateQuery);
    assert.deepEqual(
      kept.held.map((h) => h.workflowId),
      [a.workflowId],
    );
    assert.deepEqual(
      kept.queue.map((q) => q.workflowId),
      [b.workflowId, c.workflowId],
      'oldest waiter first',
    );

    await a.cancel();
    await assert.rejects(a.result());
    await statusWhen(b, (s) => stepState(s, 'locks') === 'done');
    assert.equal(stepState(await c.query(statusQuery), 'locks'), 'running', 'c waits for b now');
    await b.cancel();
    await assert.rejects(b.result());
    await statusWhen(c, (s) => stepState(s, 'locks') === 'done');
  });

  it('a waiter whose keeper was terminated asks again by itself: it gets the locks once the holder is gone', async () => {
    await using world = await runbookWorld();
    const a = await world.start(dataPathMove, moveOf('forge', world.nodeName()));
    await statusWhen(a, (s) => stepState(s, 'locks') === 'done');
    const b = await world.start(dataPathMove, moveOf('forge', world.nodeName()));
    await statusWhen(b, (s) => locksNote(s).startsWith('waits for'));
    await keeperOf(world).terminate('test: the lock keeper is lost');
    // Terminated too, a releases nothing and starts no keeper: only b's asking again can.
    await a.terminate('test: a Web UI button');
    await statusWhen(b, (s) => stepState(s, 'locks') === 'done');
  });

  it('a holder whose release finds no keeper starts it again: the waiter gets the locks at once', async () => {
    await using world = await runbookWorld();
    const a = await world.start(dataPathMove, moveOf('forge', world.nodeName()));
    await statusWhen(a, (s) => stepState(s, 'locks') === 'done');
    const b = await world.start(dataPathMove, {
      ...moveOf('forge', world.nodeName()),
      timings: { ...FAST_TIMINGS, lockAskAgainMs: 600_000 },
    });
    await statusWhen(b, (s) => locksNote(s).startsWith('waits for'));
    await keeperOf(world).terminate('test: the lock keeper is lost');
    await a.cancel();
    await assert.rejects(a.result());
    // Well before its own ask again (10 min): the cancelled holder's release starts a keeper.
    await statusWhen(b, (s) => stepState(s, 'locks') === 'done', 120_000);
  });

  it('two runbooks hold, the keeper is terminated and restarted by a third start: none is granted twice', async () => {
    await using world = await runbookWorld();
    const aInput = await seedEdgeFlip(world, { leftovers: true });
    const a = await world.start(edgeFlip, aInput);
    await statusWhen(a, waitingAt('gate-apply'));
    const b = await world.start(edgeFlip, { ...aInput, node: world.nodeName() });
    await statusWhen(b, (s) => stepState(s, 'locks') === 'done');
    await keeperOf(world).terminate('test: the lock keeper is lost');

    const c = await world.start(dataPathMove, moveOf('route-proxy', world.nodeName()));
    await statusWhen(c, (s) => locksNote(s).startsWith('waits for'));
    const kept = await keeperOf(world).query(lockStateQuery);
    assert.deepEqual(kept.held.map((h) => h.workflowId).sort(), [a.workflowId, b.workflowId].sort());
    assert.deepEqual(
      kept.queue.map((q) => q.workflowId),
      [c.workflowId],
    );

    await a.cancel();
    await assert.rejects(a.result());
    await setTimeout(3 * ASK_AGAIN_MS);
    assert.equal(stepState(await c.query(statusQuery), 'locks'), 'running', 'b still shares route-proxy');
    await b.cancel();
    await assert.rejects(b.result());
    await statusWhen(c, (s) => stepState(s, 'locks') === 'done');
  });

  it('a release signal from anyone but the holder’s own run is ignored', async () => {
    await using world = await runbookWorld();
    const a = await world.start(dataPathMove, moveOf('forge', world.nodeName()));
    await statusWhen(a, (s) => stepState(s, 'locks') === 'done');
    const b = await world.start(dataPathMove, moveOf('forge', world.nodeName()));
    await statusWhen(b, (s) => locksNote(s).startsWith('waits for'));

    // As from the Web UI's signal dialog: a's ids, read from the keeper's own query.
    await keeperOf(world).signal(releaseLocks, { workflowId: a.workflowId, runId: a.firstExecutionRunId });
    await setTimeout(3 * ASK_AGAIN_MS);
    assert.equal(stepState(await b.query(statusQuery), 'locks'), 'running', 'b must not get what a holds');
    assert.deepEqual(
      (await keeperOf(world).query(lockStateQuery)).held.map((h) => h.workflowId),
      [a.workflowId],
    );

    await a.cancel();
    await assert.rejects(a.result());
    await statusWhen(b, (s) => stepState(s, 'locks') === 'done');
  });

  it('a waiter that lets go while the keeper grants it leaves no phantom holder: the keeper ends empty', async () => {
    await using world = await runbookWorld();
    for (const delayMs of [0, 5, 10, 20, 30, 40, 60, 80, 100, 150]) {
      const a = await world.start(dataPathMove, moveOf('forge', world.nodeName()));
      await statusWhen(a, (s) => stepState(s, 'locks') === 'done');
      const b = await world.start(dataPathMove, moveOf('forge', world.nodeName()));
      await statusWhen(b, (s) => locksNote(s).startsWith('waits for'));
      // a's release makes the keeper grant b, as b is cancelled and releases: the two cross.
      await a.cancel();
      await setTimeout(delayMs);
      await b.cancel();
      // b may be cancelled as its grant arrives, while it marks its node: it must end all the same.
      await endsWithin([a, b], 120_000, `${delayMs} ms apart`);
      await keeperEnded(world, `the keeper still holds something ${delayMs} ms apart`);
    }
  });

  it('a holder terminated after its keeper was restarted is still noticed: the waiter gets the lock', async () => {
    await using world = await runbookWorld();
    const a = await world.start(dataPathMove, moveOf('forge', world.nodeName()));
    await statusWhen(a, (s) => stepState(s, 'locks') === 'done');
    const b = await world.start(dataPathMove, moveOf('forge', world.nodeName()));
    await statusWhen(b, (s) => locksNote(s).startsWith('waits for'));
    await keeperOf(world).terminate('test: the lock keeper is lost');
    const c = await world.start(dataPathMove, moveOf('forge', world.nodeName()));
    await statusWhen(c, (s) => locksNote(s).startsWith('waits for'));
    await a.terminate('test: a runbook that never releases');
    await statusWhen(b, (s) => stepState(s, 'locks') === 'done');
    assert.equal(stepState(await c.query(statusQuery), 'locks'), 'running');
  });
});

const ASK_AGAIN_MS = 1_000;

function keeperOf(world: RunbookWorld) {
  return world.client.workflow.getHandle(lockKeeperId(world.taskQueue));
}

async function endsWithin(
  runs: { workflowId: string; result(): Promise<unknown>; query: WorkflowHandle['query'] }[],
  ms: number,
  when: string,
) {
  const ended = Promise.all(runs.map((run) => run.result().catch(() => undefined))).then(() => 'ended');
  const outcome = await Promise.race([ended, setTimeout(ms, 'still running')]);
  if (outcome === 'ended') return;
  const where = await Promise.all(
    runs.map(async (run) => {
      const status = await run.query(statusQuery).catch((e: unknown) => String(e));
      return `${run.workflowId}: ${typeof status === 'string' ? status : JSON.stringify(status.steps.filter((s) => s.state !== 'pending'))}`;
    }),
  );
  assert.fail(`a cancelled runbook did not end within ${ms / 1000} s (${when}); ${where.join('; ')}`);
}

/** The keeper ends once nobody holds or wants a lock; one that still runs with nobody left holds a phantom. */
async function keeperEnded(world: RunbookWorld, message: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const { status } = await keeperOf(world).describe();
    if (status.name !== 'RUNNING') return;
    if (Date.now() >= deadline) {
      const state = await keeperOf(world).query(lockStateQuery);
      assert.fail(`${message}: ${JSON.stringify(state)}`);
    }
    await setTimeout(200);
  }
}

function moveOf(module: string, node: string) {
  return {
    node,
    module,
    from: `/srv/${node}/a`,
    to: `/srv/${node}/b`,
    startedBy: 'alice',
    timings: { ...FAST_TIMINGS, lockAskAgainMs: ASK_AGAIN_MS },
  };
}
