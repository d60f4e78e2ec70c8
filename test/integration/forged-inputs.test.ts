import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dataPathMove, edgeFlip } from '../../workflows';
import { FAILURE, runbookWorkflowId, statusQuery } from '../../workflows/contracts';
import { fleetWorkflowId, FLEET_NODE } from '../../workflows/fleet/contracts';
import { locksGranted } from '../../workflows/lock';
import { clearMarkSignal, nodeMarkId } from '../../workflows/node-mark-contracts';
import { RunbookPolicy } from '../../workflows/policy';
import { PRODUCT_TIMING_LIMITS } from '../../workflows/timing-limits';
import { FROM, moveInput, seedForge } from '../support/data-move';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { nodeStarted, seedFleet, startFleet } from '../support/edge-flip-fleet';
import { activityCompleted, failedRun, READS_BEFORE_TRUST } from '../support/refusals';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import {
  FAST_TIMINGS,
  isRunning,
  moduleContainers,
  statusWhen,
  stepState,
  waitingAt,
} from '../support/runbooks';

/** A fleet approval nobody gave, as issue 36 typed it into `temporal workflow start`. */
const forgedApproval = () => ({
  runbook: fleetWorkflowId('route-proxy'),
  gate: 'approve-waves',
  by: 'carol',
  at: new Date().toISOString(),
  evidence: '0123456789',
});

/** Starts a runbook by its type name, as the Temporal CLI and the Web UI's Start Workflow do. */
function startByHand(world: RunbookWorld, type: string, workflowId: string, input: object) {
  return world.client.workflow.start(type, { taskQueue: world.taskQueue, workflowId, args: [input] });
}

async function assertRefusedUntouched(handle: Parameters<typeof failedRun>[0], sentence: RegExp) {
  const run = await failedRun(handle);
  assert.equal(run.type, FAILURE.invalidInput, run.message);
  assert.match(run.message, sentence);
  assert.deepEqual(
    run.activities.filter((a) => !READS_BEFORE_TRUST.includes(a)),
    [],
    'it read, and changed nothing',
  );
  assert.equal(run.status?.phase, 'failed');
  return run;
}

describe('a runbook believes nothing in its input it cannot verify (real Temporal, real Docker)', () => {
  it('an edge flip started through a plain client with a forged fleet approval ends failed at its first task: caddy serves, route-proxy never assigned', async () => {
    await using world = await runbookWorld();
    const input = await seedEdgeFlip(world);
    const handle = await startByHand(world, 'edgeFlip', runbookWorkflowId(input.node), {
      ...input,
      fleetApproval: forgedApproval(),
    });
    const run = await assertRefusedUntouched(
      handle,
      /^fleetApproval may only come from runbook-fleet-route-proxy, the fleet runbook of route-proxy, and this run was not started by a fleet: nothing was changed/,
    );
    assert.deepEqual(run.status?.decisions, [], 'nobody decided, and nothing says so');
    const caddy = (await moduleContainers(world.engine, input.node, 'caddy')).map((n) =>
      n.replace(/^\//, ''),
    );
    assert.ok(
      caddy.length > 0 && (await Promise.all(caddy.map((c) => isRunning(world.engine, c)))).every(Boolean),
    );
    assert.deepEqual(await moduleContainers(world.engine, input.node, 'route-proxy'), []);
    assert.ok(!(await world.mesh.moduleNodes('route-proxy')).includes(input.node), 'route-proxy unassigned');
  });

  it('a data-path move started with a forged fleet part ends failed: no lock skipped, the policy stays roll-out, forge runs on A', async () => {
    await using world = await runbookWorld();
    const forge = await seedForge(world);
    const handle = await startByHand(world, 'dataPathMove', runbookWorkflowId(forge.node), {
      ...moveInput(forge),
      fleet: { fleet: fleetWorkflowId(forge.module), policy: 'roll-out', revertible: true },
    });
    await assertRefusedUntouched(handle, /^fleet may only come from runbook-fleet-forge-/);
    assert.equal((await world.mesh.moduleSpec(forge.module)).upgradePolicy, 'roll-out');
    assert.ok(await isRunning(world.engine, forge.web));
    const [web] = (await world.engine.inspect(forge.web))?.Mounts ?? [];
    assert.ok(web?.Source.endsWith(FROM), `${forge.web} still mounts A: ${web?.Source}`);
  });

  it("timings outside the worker's policy are refused, naming each; timings inside it run", async () => {
    const policy = { ...RunbookPolicy.parse({}), timingLimits: PRODUCT_TIMING_LIMITS };
    await using world = await runbookWorld({ deps: { policy } });
    const input = await seedEdgeFlip(world);
    const forged = await world.start(edgeFlip, {
      ...input,
      timings: { ...FAST_TIMINGS, stabilityWindowMs: 0, probeDeadlineMs: 3_600_000 },
    });
    await assertRefusedUntouched(
      forged,
      /^The runbook's timings are outside what the worker's policy allows \(stabilityWindowMs 0 is below its least, 3000; recheckEveryMs 300 is below its least, 1000; probeDeadlineMs 3600000 is above its most, 60000\)/,
    );
    const within = await world.start(edgeFlip, {
      ...input,
      timings: { ...FAST_TIMINGS, stabilityWindowMs: 3_000, recheckEveryMs: 1_000 },
    });
    await statusWhen(within, waitingAt('approve-stop-predecessor'), 120_000);
  });

  it('a prediction of a gate the plan lacks is refused: predictions come from mesh runbook plan', async () => {
    await using world = await runbookWorld();
    const input = await seedEdgeFlip(world);
    const handle = await world.start(edgeFlip, { ...input, predicted: { 'skip-every-gate': 'ok' } });
    await assertRefusedUntouched(
      handle,
      /^The input predicts ok at skip-every-gate, which no plan of edge-flip can/,
    );
  });

  it('a fleet given carried state by hand, or node runbooks carrying what only it sets, starts no node', async () => {
    await using world = await runbookWorld();
    const input = await seedFleet(world, { count: 2 });
    world.owns(`${FLEET_NODE}-${input.module}`);
    const carried = await startByHand(world, 'edgeFlipFleet', fleetWorkflowId(input.module), {
      ...input,
      approvals: 'canary-then-waves',
      carried: {
        status: {
          id: fleetWorkflowId(input.module),
          kind: 'edge-flip',
          node: FLEET_NODE,
          module: input.module,
          startedBy: 'alice',
          phase: 'running',
          waiting: null,
          steps: [],
          decisions: [],
          refused: [],
        },
        ended: [],
        approval: forgedApproval(),
        runs: 1,
      },
    });
    await assertRefusedUntouched(
      carried,
      /^carried is what a fleet hands the run it continues as, and this run continued from none/,
    );
    const [first, second] = input.runbooks;
    const withApproval = await startFleet(world, {
      ...input,
      runbooks: [{ ...first!, fleetApproval: forgedApproval() }, second!],
    });
    await assertRefusedUntouched(
      withApproval,
      /^The runbook of \S+ carries fleetApproval, which only the fleet sets/,
    );
    const otherStarter = await startFleet(world, {
      ...input,
      runbooks: [first!, { ...second!, startedBy: 'bob' }],
    });
    await assertRefusedUntouched(otherStarter, /says it was started by bob, the fleet by alice/);
    for (const runbook of input.runbooks) assert.equal(await nodeStarted(world, runbook.node), false);
  });

  it('a lock grant the keeper did not give is ignored: the waiting runbook still waits, and gets the lock when it is free', async () => {
    await using world = await runbookWorld();
    const a = await world.start(dataPathMove, lockedMove('forge', world.nodeName()));
    await statusWhen(a, (s) => stepState(s, 'locks') === 'done');
    const b = await world.start(dataPathMove, lockedMove('forge', world.nodeName()));
    await statusWhen(b, (s) =>
      (s.steps.find((step) => step.name === 'locks')?.note ?? '').startsWith('waits for'),
    );
    await b.signal(locksGranted);
    assert.equal(await activityCompleted(b, 'lockGrantOf'), false, 'the keeper does not hold b');
    assert.equal(stepState(await b.query(statusQuery), 'locks'), 'running', 'b did not go on');
    await a.cancel();
    await assert.rejects(a.result());
    await statusWhen(b, (s) => stepState(s, 'locks') === 'done');
  });

  it("a clear-mark signal without a clearance behind it leaves the node's mark: the next runbook is refused until mesh runbook clear", async () => {
    await using world = await runbookWorld();
    const input = await seedEdgeFlip(world, { leftovers: true });
    const handle = await world.start(edgeFlip, input);
    await statusWhen(handle, waitingAt('gate-apply'));
    await handle.terminate('a Web UI button');
    const mark = world.client.workflow.getHandle(nodeMarkId(input.node));
    await mark.signal(clearMarkSignal, { by: 'mallory', reason: 'forged', at: new Date().toISOString() });
    assert.equal(await activityCompleted(mark, 'clearanceOf'), false, 'no clearance run says so');
    assert.equal((await mark.describe()).status.name, 'RUNNING', 'the mark stays');
    const next = await failedRun(await world.start(edgeFlip, input));
    assert.equal(next.type, FAILURE.nodeNeedsClearing, next.message);
    const clearance = await world.client.workflow.start('clearNode', {
      taskQueue: world.taskQueue,
      workflowId: runbookWorkflowId(input.node),
      args: [{ node: input.node, by: 'dave', reason: 'looked: route-proxy unassigned by hand' }],
    });
    await clearance.result();
    await mark.result();
    const after = await world.start(edgeFlip, input);
    await statusWhen(after, waitingAt('gate-apply'));
  });
});

/** A move of `module` on a node nobody seeded: it takes its locks, then waits at its preflight. */
function lockedMove(module: string, node: string) {
  return {
    node,
    module,
    from: `/srv/${node}/a`,
    to: `/srv/${node}/b`,
    startedBy: 'alice',
    timings: FAST_TIMINGS,
  };
}
