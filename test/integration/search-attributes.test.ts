import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { edgeFlip } from '../../workflows';
import { RUNBOOK_REVISION } from '../../workflows/runbook/revision';
import { WAITING_QUERY } from '../../workflows/search-attributes';
import { seedEdgeFlip, type EdgeFlipSeed } from '../support/edge-flip-seed';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { decide, statusWhen, waitingAt } from '../support/runbooks';

/** Ids the visibility query returns, once it returns `expected` (visibility lags the runbooks a little). */
async function idsWhen(
  client: Client,
  query: string,
  expected: string[],
  timeoutMs = 180_000,
): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ids: string[] = [];
    for await (const execution of client.workflow.list({ query })) ids.push(execution.workflowId);
    ids.sort();
    if (JSON.stringify(ids) === JSON.stringify([...expected].sort()) || Date.now() > deadline) return ids;
    await delay(250);
  }
}

/** Seeds a node and starts its edge flip: the node and the runbook's handle. */
async function startOnNewNode(world: RunbookWorld, seed: EdgeFlipSeed = {}) {
  const input = await seedEdgeFlip(world, seed);
  return { node: input.node, handle: await world.start(edgeFlip, input) };
}

describe('search attributes: the Web UI list finds every runbook waiting for a decision in one query', () => {
  it('the waiting query returns exactly the waiting runbooks; node, phase and gate filter too', async () => {
    await using world = await runbookWorld();
    const finished = await startOnNewNode(world);
    await statusWhen(finished.handle, waitingAt('approve-stop-predecessor'));
    await decide(finished.handle, 'approve');
    await statusWhen(finished.handle, (s) => s.phase === 'completed');
    const held = await startOnNewNode(world, { leftovers: true });
    await statusWhen(held.handle, waitingAt('gate-apply'));
    const approving = await startOnNewNode(world);
    await statusWhen(approving.handle, waitingAt('approve-stop-predecessor'));

    const mine = `TaskQueue = '${world.taskQueue}'`;
    const client = world.client;
    const waiting = [held.handle.workflowId, approving.handle.workflowId];
    assert.deepEqual(await idsWhen(client, `${WAITING_QUERY} AND ${mine}`, waiting), [...waiting].sort());
    assert.deepEqual(
      await idsWhen(client, `MeshPhase = 'waiting' AND ${mine}`, waiting),
      [...waiting].sort(),
    );
    assert.deepEqual(
      await idsWhen(client, `MeshWaitingOn = 'gate-apply' AND ${mine}`, [held.handle.workflowId]),
      [held.handle.workflowId],
    );
    assert.deepEqual(
      await idsWhen(client, `MeshPhase = 'completed' AND MeshNode = '${finished.node}'`, [
        finished.handle.workflowId,
      ]),
      [finished.handle.workflowId],
    );
    const described = await approving.handle.describe();
    assert.deepEqual(
      {
        node: described.typedSearchAttributes.getAll().find((p) => p.key.name === 'MeshNode')?.value,
        kind: described.typedSearchAttributes.getAll().find((p) => p.key.name === 'MeshKind')?.value,
        module: described.typedSearchAttributes.getAll().find((p) => p.key.name === 'MeshModule')?.value,
        revision: described.typedSearchAttributes.getAll().find((p) => p.key.name === 'MeshRevision')?.value,
      },
      { node: approving.node, kind: 'edge-flip', module: 'route-proxy', revision: RUNBOOK_REVISION },
    );
  });
});
