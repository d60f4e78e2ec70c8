// harness: own dev server: its edge-flip fleet runbook is runbook-fleet-route-proxy, one id per namespace that other files start too
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CancelledFailure } from '@temporalio/common';
import { statusQuery, type EdgeFlipInputArg } from '../../workflows/contracts';
import {
  answerNode,
  fleetWaitsOrEnds,
  nodeStarted,
  nodeStatus,
  seedFleet,
  startFleet,
} from '../support/edge-flip-fleet';
import { FLEET_NODE_HEADER } from '../../mesh/local/scenarios/edge-fleet';
import { runbookWorld } from '../support/runbook-world';
import {
  closedFailing,
  decide,
  decisionRefusal,
  httpBody,
  moduleContainers,
  stepState,
} from '../support/runbooks';

describe('edge-flip fleet: each node runs its own runbook as a child, canary first (real Temporal, real Docker)', () => {
  it('flips the canary, pauses at the held node naming it and its reasons, starts nobody meanwhile, finishes after take', async () => {
    await using world = await runbookWorld();
    const input = await seedFleet(world, { count: 4, heldAt: [2] });
    const nodes = input.runbooks.map((r) => r.node);
    const held = nodes[2]!;
    const fleet = await startFleet(world, input);
    /** Answers the node's waits (on the node itself) until it approved; the fleet waits at each one. */
    const flipThrough = async (node: string) => {
      for (;;) {
        const paused = await fleetWaitsOrEnds(fleet);
        assert.equal(paused.waiting?.gate, node);
        if ((await answerNode(world, fleet, node)) === 'approve') return;
      }
    };

    // Every node waits at its approval; the fleet waits with it, one node at a time.
    for (const node of nodes.slice(0, 2)) await flipThrough(node);

    const paused = await fleetWaitsOrEnds(fleet);
    assert.equal(paused.phase, 'waiting');
    assert.equal(paused.waiting?.gate, held, 'the fleet waits at the held node');
    assert.equal(paused.waiting?.verdict, 'held');
    assert.match(paused.waiting?.reason ?? '', new RegExp(`^${held} waits at gate-apply \\(held\\)`));
    assert.deepEqual(paused.waiting?.actions, ['abort'], 'no continue while a node waits');
    const reasons = paused.waiting?.facts.join('\n') ?? '';
    for (const dir of ['www', 'ca', 'dns'])
      assert.match(
        reasons,
        new RegExp(`/var/lib/route-proxy/${dir}.*not touched until route-proxy is taken`),
      );
    assert.equal(stepState(paused, nodes[0]!), 'done');
    assert.equal(stepState(paused, nodes[1]!), 'done');
    assert.equal(stepState(paused, held), 'waiting');
    assert.equal(stepState(paused, nodes[3]!), 'pending');
    assert.equal((await nodeStatus(world, held)).waiting?.gate, 'gate-apply', 'status <node> still answers');
    assert.match(
      await decisionRefusal(decide(fleet, 'continue')),
      /continue is not an action at gate .* choose one of: abort/,
    );
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    assert.equal(await nodeStarted(world, nodes[3]!), false, 'no node starts while one waits');

    assert.equal(await answerNode(world, fleet, held), 'take');
    await flipThrough(held);
    await flipThrough(nodes[3]!);

    const done = await fleet.result();
    assert.equal(done.phase, 'completed');
    assert.match(done.outcome ?? '', /4 of 4 completed/);
    for (const node of nodes) {
      assert.equal(stepState(done, node), 'done');
      assert.equal((await nodeStatus(world, node)).phase, 'completed');
    }
    for (const { publicAddress } of input.runbooks)
      assert.match(await httpBody(publicAddress), /served by route-proxy/);
    assert.deepEqual(
      done.decisions.map((d) => d.action),
      [],
      'every decision was taken on the nodes themselves',
    );
  });

  it("a node whose probes reach another node's server (a shared name, an alias of its address) never has its predecessor stopped", async () => {
    await using world = await runbookWorld();
    const input = await seedFleet(world, { count: 2 });
    const [canary, second] = input.runbooks as [EdgeFlipInputArg, EdgeFlipInputArg];
    // The second node's public address is another spelling of the canary's (as a DNS name both share
    // would be): once the canary flips, every probe of the second node is answered by the canary.
    second.publicAddress = `http://[::ffff:127.0.0.1]:${new URL(canary.publicAddress).port}`;
    const caddy = (await moduleContainers(world.engine, second.node, 'caddy'))[0]?.replace(/^\//, '') ?? '';
    const startedAt = (await world.engine.inspect(caddy))?.State.StartedAt;
    assert.ok(startedAt, `${second.node} runs caddy`);
    const fleet = await startFleet(world, input);
    try {
      assert.equal(await answerNode(world, fleet, canary.node), 'approve');

      const paused = await fleetWaitsOrEnds(fleet);
      assert.equal(paused.waiting?.gate, second.node, 'the fleet pauses at the second node');
      // Its runbook ended refused at preflight (nothing changed); the fleet waits for continue or abort.
      const own = await nodeStatus(world, second.node);
      assert.equal(own.phase, 'failed', `${second.node}: ${own.outcome}`);
      assert.equal(stepState(own, 'preflight'), 'failed');
      assert.match(
        own.outcome ?? '',
        /^refused at preflight: the predecessor does not serve the public names now: .*not the expected server/,
      );
      assert.deepEqual(paused.waiting?.actions, ['continue', 'abort']);
      assert.equal(stepState(own, 'stop-predecessor'), 'pending', 'the predecessor was never stopped');
      const after = await world.engine.inspect(caddy);
      assert.equal(after?.State.Running, true);
      assert.equal(after?.State.StartedAt, startedAt, `${caddy} ran throughout`);
      assert.match(
        await httpBody(canary.publicAddress),
        new RegExp(`served by route-proxy on ${canary.node}\\.`),
      );
    } finally {
      await fleet.cancel();
      await fleet.result().catch(() => undefined);
    }
  });

  it('with a node header and markers that do not name the node, an answer from another node fails the probe too', async () => {
    await using world = await runbookWorld();
    const input = await seedFleet(world, { count: 2 });
    for (const runbook of input.runbooks)
      Object.assign(runbook, {
        successorMarker: 'served by route-proxy',
        predecessorMarker: 'served by caddy',
        nodeHeader: FLEET_NODE_HEADER,
      });
    const [canary, second] = input.runbooks as [EdgeFlipInputArg, EdgeFlipInputArg];
    second.publicAddress = `http://[::ffff:127.0.0.1]:${new URL(canary.publicAddress).port}`;
    const fleet = await startFleet(world, input);
    try {
      assert.equal(await answerNode(world, fleet, canary.node), 'approve', 'the canary answers as itself');
      const paused = await fleetWaitsOrEnds(fleet);
      assert.equal(paused.waiting?.gate, second.node);
      const own = await nodeStatus(world, second.node);
      assert.equal(own.phase, 'failed', own.outcome);
      assert.equal(stepState(own, 'preflight'), 'failed');
      assert.match(
        own.outcome ?? '',
        new RegExp(`git\\.example\\.test \\(status 200, .*answered by ${canary.node}, not ${second.node}\\)`),
      );
      assert.equal(stepState(own, 'stop-predecessor'), 'pending');
      assert.equal(stepState(await nodeStatus(world, canary.node), 'probe-public'), 'done');
    } finally {
      await fleet.cancel();
      await fleet.result().catch(() => undefined);
    }
  });

  it('abort decided at the fleet while the canary runs (its undo runs) and starts no other node', async () => {
    await using world = await runbookWorld();
    const input = await seedFleet(world, { count: 3 });
    const [canary, second] = input.runbooks.map((r) => r.node);
    const fleet = await startFleet(world, input);
    const paused = await fleetWaitsOrEnds(fleet);
    assert.equal(paused.waiting?.gate, canary);

    await decide(fleet, 'abort', undefined, 'bob');
    const { status } = await closedFailing(fleet);
    assert.equal(status.phase, 'aborted');
    assert.match(status.outcome ?? '', /aborted by bob at .*; 0 of 3 completed; .* aborted; not started: /);
    const own = await nodeStatus(world, canary!);
    assert.equal(own.phase, 'aborted');
    assert.equal(stepState(own, 'unassign-successor'), 'compensated');
    assert.deepEqual(await moduleContainers(world.engine, canary!, 'route-proxy'), []);
    assert.match(await httpBody(input.runbooks[0]!.publicAddress), /served by caddy/);
    assert.equal(await nodeStarted(world, second!), false);
  });

  it('cancelling the fleet (mesh runbook abort) cancels the running node; its compensations run', async () => {
    await using world = await runbookWorld();
    const input = await seedFleet(world, { count: 2 });
    const [canary, second] = input.runbooks.map((r) => r.node);
    const fleet = await startFleet(world, input);
    await fleetWaitsOrEnds(fleet);

    await fleet.cancel();
    const { cause, status } = await closedFailing(fleet);
    assert.ok(cause instanceof CancelledFailure, String(cause));
    assert.equal(status.phase, 'aborted');
    const own = await nodeStatus(world, canary!);
    assert.equal(own.outcome, 'aborted (cancelled); compensations ran');
    assert.equal(stepState(own, 'unassign-successor'), 'compensated');
    assert.equal(await nodeStarted(world, second!), false);
    assert.equal((await fleet.query(statusQuery)).phase, 'aborted');
  });
});
