// harness: own dev server: its edge-flip fleet runbook is runbook-fleet-route-proxy, one id per namespace that other files start too
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import { runbookWorkflowId, statusQuery, type RunbookStatus } from '../../workflows/contracts';
import { fleetWorkflowId } from '../../workflows/fleet/contracts';
import {
  answerNode,
  fleetWaitsOrEnds,
  nodeStarted,
  nodeStatus,
  seedFleet,
  startFleet,
} from '../support/edge-flip-fleet';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { RunbookPolicy } from '../../workflows/policy';
import { closedFailing, decide, decisionRefusal, freePort, httpBody, stepState } from '../support/runbooks';

/** The approvals people gave on a node's runbook, as `gate by`; a fleet's approval taken there is `fleet`. */
function ownApprovals(status: RunbookStatus): string[] {
  return status.decisions
    .filter((d) => d.gate === 'approve-stop-predecessor' && d.action === 'approve')
    .map((d) => (d.comment?.startsWith("the fleet's approval") ? 'fleet' : `${d.gate} ${d.by}`));
}

/** The fleet approval a node's runbook was started with, read from its history's first event. */
async function startedWithApproval(world: RunbookWorld, node: string): Promise<unknown> {
  const history = await world.client.workflow.getHandle(runbookWorkflowId(node)).fetchHistory();
  const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  const input = JSON.parse(Buffer.from(payload?.data ?? []).toString('utf8')) as { fleetApproval?: unknown };
  return input.fleetApproval;
}

/** A clean node that stopped its predecessor on the fleet's approval: on record with its gates' hashes. */
async function assertApprovedByFleet(world: RunbookWorld, node: string, by: string, given: RegExp) {
  const own = await nodeStatus(world, node);
  assert.equal(own.phase, 'completed', `${node}: ${own.outcome}`);
  assert.deepEqual(ownApprovals(own), ['fleet'], `${node} asked nobody`);
  const note = own.steps.find((s) => s.name === 'approve-stop-predecessor')?.note ?? '';
  assert.match(note, new RegExp(`^approved for the fleet by ${by} \\(`));
  assert.match(note, given);
  assert.match(
    note,
    /ok at first look: gate-apply [0-9a-f]{10}, verify-successor [0-9a-f]{10}, probe-successor [0-9a-f]{10}$/,
  );
  assert.equal(stepState(own, 'recheck-successor'), 'done', 'it checked once more before stopping');
  assert.equal(stepState(own, 'stop-predecessor'), 'done');
}

async function waitsAt(fleet: WorkflowHandle, gate: string): Promise<RunbookStatus> {
  const paused = await fleetWaitsOrEnds(fleet);
  assert.equal(paused.waiting?.gate, gate, `the fleet waits at ${gate}: ${JSON.stringify(paused.waiting)}`);
  return paused;
}

describe('fleet approvals, failure budget and bound (real Temporal, real Docker, four nodes and more)', () => {
  it("canary-then-waves: the canary's approval, one for the waves (four eyes), and only the held node asks its own", async () => {
    await using world = await runbookWorld();
    const input = {
      ...(await seedFleet(world, { count: 4, heldAt: [2] })),
      approvals: 'canary-then-waves' as const,
    };
    const [canary, clean, held, last] = input.runbooks.map((r) => r.node) as [string, string, string, string];
    const fleet = await startFleet(world, input);

    await waitsAt(fleet, canary);
    assert.equal(await answerNode(world, fleet, canary), 'approve');

    const asked = await waitsAt(fleet, 'approve-waves');
    assert.equal(asked.waiting?.verdict, 'approval');
    assert.deepEqual(asked.waiting?.actions, ['approve', 'abort']);
    assert.ok(asked.waiting?.facts.includes(`later nodes (3): ${clean}, ${held}, ${last}`));
    assert.equal(
      await nodeStarted(world, clean),
      false,
      'no later node starts before the waves are approved',
    );
    // The starter may not approve the waves: they stand for each later node's approve-stop-predecessor.
    const refusal = await decisionRefusal(decide(fleet, 'approve', undefined, 'alice'));
    assert.match(refusal, /^alice started this runbook and may not also approve approve-waves \(four eyes\)/);
    await decide(fleet, 'approve', undefined, 'bob');

    // The held node waits at gate-apply: the fleet waits with it; after take it asks its own approval.
    await waitsAt(fleet, held);
    assert.equal(await answerNode(world, fleet, held), 'take');
    await waitsAt(fleet, held);
    assert.equal(await answerNode(world, fleet, held), 'approve');

    const done = await fleet.result();
    assert.equal(done.phase, 'completed', done.outcome);
    const given = new RegExp(
      `\\(approve-waves of ${fleetWorkflowId('route-proxy')}, evidence ${asked.waiting?.evidence}`,
    );
    for (const node of [clean, last]) {
      await assertApprovedByFleet(world, node, 'bob', given);
      assert.deepEqual(await startedWithApproval(world, node), {
        runbook: fleetWorkflowId('route-proxy'),
        gate: 'approve-waves',
        by: 'bob',
        at: (await fleet.query(statusQuery)).decisions.find((d) => d.gate === 'approve-waves')?.at,
        evidence: asked.waiting?.evidence,
      });
      assert.match(await httpBody(input.runbooks.find((r) => r.node === node)!.publicAddress), /route-proxy/);
    }
    assert.deepEqual(ownApprovals(await nodeStatus(world, canary)), ['approve-stop-predecessor bob']);
    assert.deepEqual(ownApprovals(await nodeStatus(world, held)), ['approve-stop-predecessor bob']);
  });

  it('canary-only, --max-failures 1, --max-parallel 1: one bad later node is on record, the second pauses; a wave runs one at a time', async () => {
    await using world = await runbookWorld();
    const seeded = await seedFleet(world, { count: 5, waveSize: 2 });
    // Nodes 1 and 2 are refused at preflight: nothing answers at their public address.
    for (const runbook of seeded.runbooks.slice(1, 3))
      runbook.publicAddress = `http://127.0.0.1:${await freePort()}`;
    const input = { ...seeded, approvals: 'canary-only' as const, maxFailures: 1, maxParallel: 1 };
    const [canary, bad1, bad2, clean3, clean4] = input.runbooks.map((r) => r.node) as [
      string,
      string,
      string,
      string,
      string,
    ];
    const fleet = await startFleet(world, input);
    await waitsAt(fleet, canary);
    assert.equal(await answerNode(world, fleet, canary), 'approve');

    // The first bad end is within the budget; the second pauses the fleet, which starts nobody meanwhile.
    const paused = await waitsAt(fleet, bad2);
    assert.equal(paused.waiting?.verdict, 'failed');
    assert.match(paused.waiting?.reason ?? '', /2 nodes ended badly, more than --max-failures 1\./);
    assert.equal(stepState(paused, bad1), 'failed');
    assert.equal((await nodeStatus(world, bad1)).phase, 'failed');
    assert.equal(await nodeStarted(world, clean3), false);
    // At most one of the wave at once: the second started only after the first had ended.
    const described = (node: string) => world.client.workflow.getHandle(runbookWorkflowId(node)).describe();
    const [first, second] = await Promise.all([described(bad1), described(bad2)]);
    assert.ok(first.closeTime && second.startTime >= first.closeTime, `${bad2} started before ${bad1} ended`);

    await decide(fleet, 'continue', undefined, 'bob');
    const { status } = await closedFailing(fleet);
    assert.equal(status.phase, 'failed');
    assert.match(status.outcome ?? '', /^3 of 5 completed; .* failed; .* failed$/);
    const given = new RegExp(
      `\\(approve-stop-predecessor of ${runbookWorkflowId(canary)}, evidence [0-9a-f]{10}`,
    );
    for (const node of [clean3, clean4]) await assertApprovedByFleet(world, node, 'bob', given);
    const [third, fourth] = await Promise.all([described(clean3), described(clean4)]);
    assert.ok(
      third.closeTime && fourth.startTime >= third.closeTime,
      `${clean4} started before ${clean3} ended`,
    );
  });

  it("a fleet's approval older than the policy's fleetApprovalMaxAge stands for no later node: each asks its own, saying why", async () => {
    const policy = RunbookPolicy.parse({ fleetApprovalMaxAgeMs: 1_000 });
    await using world = await runbookWorld({ deps: { policy } });
    const input = {
      ...(await seedFleet(world, { count: 3 })),
      approvals: 'canary-then-waves' as const,
    };
    const [canary, second, third] = input.runbooks.map((r) => r.node) as [string, string, string];
    const fleet = await startFleet(world, input);
    await waitsAt(fleet, canary);
    assert.equal(await answerNode(world, fleet, canary), 'approve');
    await waitsAt(fleet, 'approve-waves');
    await decide(fleet, 'approve', undefined, 'carol');

    for (const node of [second, third]) {
      const paused = await waitsAt(fleet, node);
      const own = (await nodeStatus(world, node)).waiting;
      assert.equal(own?.gate, 'approve-stop-predecessor', JSON.stringify(paused.waiting));
      assert.match(
        own?.reason ?? '',
        /^The fleet's approval \(approve-waves of runbook-fleet-route-proxy, by carol at [^)]+\) is \d+ s old, older than the policy's fleetApprovalMaxAge \(1 s\): this node asks its own\. /,
      );
      assert.equal(await answerNode(world, fleet, node), 'approve');
    }
    const done = await fleet.result();
    assert.equal(done.phase, 'completed', done.outcome);
    for (const node of [second, third])
      assert.deepEqual(ownApprovals(await nodeStatus(world, node)), ['approve-stop-predecessor bob'], node);
  });
});
