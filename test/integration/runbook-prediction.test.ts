import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { hostPathOnNode } from '../../docker/placement';
import { edgeFlip } from '../../workflows';
import { type EdgeFlipInputArg } from '../../workflows/contracts';
import { PlanReport } from '../../workflows/plan-report';
import { edgeFlipArgs, seedEdgeFlip } from '../support/edge-flip-seed';
import { meshRunbook } from '../support/mesh-cli';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { statusWhen, waitingAt } from '../support/runbooks';

/** `mesh runbook plan edge-flip ... --json` on the world's local mesh, as an operator would run it. */
async function planOf(world: RunbookWorld, input: EdgeFlipInputArg): Promise<PlanReport> {
  const { stdout } = await meshRunbook(world, 'plan', ...edgeFlipArgs(input), '--json');
  return PlanReport.parse(JSON.parse(stdout));
}

async function leaveRouteProxyData(world: RunbookWorld, node: string): Promise<void> {
  const { hostRoot } = await world.mesh.nodeState(node);
  for (const dir of ['www', 'ca', 'dns'])
    await mkdir(hostPathOnNode(hostRoot, `/var/lib/route-proxy/${dir}`), { recursive: true });
}

describe('a gate compares what it finds with what the plan predicted at the start (real Temporal, real Docker)', () => {
  it('the node changed after the plan: gate-apply waits held and says the plan predicted ok', async () => {
    await using world = await runbookWorld();
    const input = await seedEdgeFlip(world);
    const plan = await planOf(world, input);
    assert.equal(plan.outcome, 'ok');
    // Between the plan and the push, someone restores route-proxy's data from a backup onto the node.
    await leaveRouteProxyData(world, input.node);
    const handle = await world.start(edgeFlip, input, { prediction: plan });
    // The history keeps what was predicted: it is in the runbook's input.
    const started = (await handle.fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes;
    const recorded = Buffer.from(started?.input?.payloads?.[0]?.data ?? []).toString();
    assert.match(recorded, /"predicted":\{[^}]*"gate-apply":"ok"/);

    const waiting = await statusWhen(handle, waitingAt('gate-apply'));
    assert.equal(waiting.waiting?.verdict, 'held');
    assert.match(
      waiting.waiting?.reason ?? '',
      /Unlike the plan: the plan predicted ok at the start, the node says held now\./,
    );
    assert.ok(
      waiting.waiting?.facts.includes(
        'unlike the plan: the plan predicted ok at the start, the node says held now',
      ),
    );
    assert.match(waiting.steps.find((s) => s.name === 'gate-apply')?.note ?? '', /the plan predicted ok/);
    await handle.cancel();
    await handle.result().catch(() => undefined);
  });

  it('the plan foresaw the hold: the gate says the prediction held, and nothing differs', async () => {
    await using world = await runbookWorld();
    const input = await seedEdgeFlip(world, { leftovers: true });
    const plan = await planOf(world, input);
    assert.equal(plan.outcome, 'decision');
    const handle = await world.start(edgeFlip, input, { prediction: plan });
    const waiting = await statusWhen(handle, waitingAt('gate-apply'));
    assert.equal(waiting.waiting?.verdict, 'held');
    assert.doesNotMatch(waiting.waiting?.reason ?? '', /Unlike the plan/);
    assert.ok(
      waiting.waiting?.facts.includes('as the plan predicted at the start: held'),
      String(waiting.waiting?.facts),
    );
    await handle.cancel();
    await handle.result().catch(() => undefined);
  });
});
