// harness: own dev server: its edge-flip fleet runbook is runbook-fleet-route-proxy, one id per namespace that other files start too
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WorkflowNotFoundError } from '@temporalio/client';
import { fleetPredecessorSpec } from '../../mesh/local/scenarios/edge-fleet';
import { edgeFlip } from '../../workflows';
import { runbookWorkflowId, statusQuery } from '../../workflows/contracts';
import { fleetWorkflowId } from '../../workflows/fleet/contracts';
import { FleetPlanReport } from '../../workflows/plan-report';
import { forward, seedFleet } from '../support/edge-flip-fleet';
import { meshRunbook } from '../support/mesh-cli';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { decide, statusWhen, waitingAt } from '../support/runbooks';

const mesh = meshRunbook;

/** Looks again at any other wait of the node (a container slow to turn healthy on a loaded machine). */
async function untilApproval(world: RunbookWorld, node: string): Promise<void> {
  const own = world.client.workflow.getHandle(runbookWorkflowId(node));
  for (;;) {
    const { waiting } = await statusWhen(own, (s) => s.waiting !== null, 120_000);
    if (waiting?.gate === 'approve-stop-predecessor') return;
    await decide(own, forward(waiting?.actions ?? []), undefined, 'bob');
    await statusWhen(own, (s) => s.waiting?.since !== waiting?.since, 120_000);
  }
}

/** Whether a run under `id` started since `since` (the fleet's id is the same in every test of the namespace). */
async function started(world: RunbookWorld, id: string, since: Date): Promise<boolean> {
  return world.client.workflow
    .getHandle(id)
    .describe()
    .then(
      (run) => run.startTime >= since,
      (error: unknown) => {
        assert.ok(error instanceof WorkflowNotFoundError, String(error));
        return false;
      },
    );
}

/** The fleet's start options for the seeded nodes: each node's own addresses as node=url pairs. */
async function fleetOptions(world: RunbookWorld, count: number) {
  const input = await seedFleet(world, { count });
  const pairs = (field: 'publicAddress' | 'successorAddress') =>
    input.runbooks.map((r) => `${r.node}=${r[field]}`).join(',');
  const options = [
    'edge-flip',
    '--module',
    'route-proxy',
    '--predecessor',
    'caddy',
    ...input.runbooks[0]!.publicNames.flatMap((name) => ['--public-name', name]),
    '--public-address',
    pairs('publicAddress'),
    '--successor-address',
    pairs('successorAddress'),
    '--successor-marker',
    'served by route-proxy on {node}.',
    '--predecessor-marker',
    'served by caddy on {node}.',
    '--as',
    'alice',
  ];
  return { input, nodes: input.runbooks.map((r) => r.node), options };
}

describe('mesh runbook start edge-flip --nodes: one fleet runbook (real Temporal, real Docker, the CLI as a subprocess)', () => {
  it('refuses a bad fleet with one sentence and exit 2, and starts nothing', async () => {
    const since = new Date();
    await using world = await runbookWorld();
    const { input, nodes, options } = await fleetOptions(world, 2);
    const [a, b] = nodes as [string, string];
    // a runs its own runbook already: the fleet may not start there (the node lock).
    await world.start(edgeFlip, { ...input.runbooks[0]!, startedBy: 'carol' });
    await statusWhen(
      world.client.workflow.getHandle(runbookWorkflowId(a)),
      waitingAt('approve-stop-predecessor'),
    );

    await world.mesh.defineModule(fleetPredecessorSpec('spare'));
    const cases: [string[], RegExp][] = [
      [
        ['--nodes', `${b},tnope`],
        /^error: --nodes names tnope, which mesh does not know \(There is no node "tnope"/,
      ],
      [['--nodes', ''], /^error: --nodes "" has an empty name/],
      [['--nodes', `${b},${b}`], new RegExp(`^error: --nodes names ${b} twice`)],
      [['--nodes', b, '--node', b], /starts one node's runbook, and the fleet options start a fleet/],
      [
        ['--all-nodes-with', 'nothing-here'],
        /^error: --all-nodes-with nothing-here: There is no module "nothing-here"/,
      ],
      [
        ['--all-nodes-with', 'spare'],
        /^error: --all-nodes-with spare finds no node: spare is assigned to none\.$/,
      ],
      [
        ['--nodes', `${a},${b}`, '--canary', 'tnope'],
        /^error: --canary tnope is not one of the fleet's nodes/,
      ],
      [['--nodes', `${a},${b}`, '--wave-size', '0'], /^error: --wave-size "0" is invalid/],
      [
        ['--nodes', `${a},${b}`, '--public-address', 'http://edge.example.net:80'],
        new RegExp(
          `^error: --public-address gives ${a} and ${b} the same URL, http://edge\\.example\\.net \\(after ${a} flips, the probes of ${b} would reach ${a} and pass\\)\\.$`,
        ),
      ],
      [
        ['--nodes', `${a},${b}`, '--successor-marker', 'served by route-proxy'],
        /^error: --successor-marker "served by route-proxy" has no \{node\} and no --node-header is given/,
      ],
      [
        ['--nodes', `${a},${b}`],
        new RegExp(
          `^error: Runbook ${runbookWorkflowId(a)} \\(edge-flip, started by carol\\) is still running on ${a}, waiting at approve-stop-predecessor`,
        ),
      ],
    ];
    for (const [extra, sentence] of cases) {
      const outcome = await mesh(world, 'start', ...options, ...extra);
      assert.equal(outcome.code, 2, `${extra.join(' ')}: exit 2 expected; stderr: ${outcome.stderr}`);
      assert.equal(outcome.stdout, '');
      const lines = outcome.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 2, `one sentence and one suggestion: ${outcome.stderr}`);
      assert.match(lines[0] ?? '', sentence);
    }
    const single = await mesh(world, 'start', ...options.filter((o) => o !== '--nodes'));
    assert.equal(single.code, 2);
    assert.match(single.stderr, /^error: Name the node to flip with --node, or a fleet/);
    assert.equal(await started(world, fleetWorkflowId('route-proxy'), since), false, 'no fleet started');
    assert.equal(await started(world, runbookWorkflowId(b), since), false, 'no node of it started');
  });

  it("plan takes the fleet's options: each node's predicted outcome, nothing started; a bad fleet is refused as start refuses it", async () => {
    const since = new Date();
    await using world = await runbookWorld();
    const { nodes, options } = await fleetOptions(world, 2);
    const [a, b] = nodes as [string, string];
    const planned = await mesh(world, 'plan', ...options, '--nodes', `${b},${a}`);
    assert.equal(planned.code, 0, planned.stderr);
    const lines = planned.stdout.split('\n');
    assert.equal(
      lines[0],
      `plan: edge-flip fleet of route-proxy: canary ${b}, then one at a time: ${a} (exit 0)`,
    );
    assert.deepEqual(
      lines.filter((line) => line.startsWith('plan: edge-flip of')),
      [b, a].map((node) => `plan: edge-flip of route-proxy on ${node}: every gate is predicted ok (exit 0)`),
    );
    const json = await mesh(world, 'plan', ...options, '--all-nodes-with', 'caddy', '--json');
    assert.equal(json.code, 0, json.stderr);
    const report = FleetPlanReport.parse(JSON.parse(json.stdout));
    assert.deepEqual([...report.nodes].sort(), [a, b].sort());
    assert.deepEqual(
      report.plans.map((plan) => [plan.node, plan.outcome]),
      report.nodes.map((node) => [node, 'ok']),
    );
    const refused = await mesh(
      world,
      'plan',
      ...options,
      '--nodes',
      `${a},${b}`,
      '--successor-address',
      'http://127.0.0.1:1',
    );
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(
      refused.stderr,
      /^error: --successor-address gives .* the same URL, http:\/\/127\.0\.0\.1:1 /,
    );
    assert.equal(await started(world, fleetWorkflowId('route-proxy'), since), false, 'plan starts nothing');
    assert.equal(await started(world, runbookWorkflowId(a), since), false);
  });

  it('--all-nodes-with caddy starts the fleet; status, list and watch show it and each node; nodes are decided on themselves', async () => {
    await using world = await runbookWorld();
    const { nodes, options } = await fleetOptions(world, 2);
    const [canary, other] = [...nodes].sort() as [string, string];
    const fleetId = fleetWorkflowId('route-proxy');
    world.owns('fleet-route-proxy');

    const start = await mesh(world, 'start', ...options, '--all-nodes-with', 'caddy', '--detach');
    assert.equal(start.code, 0, start.stderr);
    // Each node's plan is shown before the fleet starts; without a terminal nothing is asked.
    for (const node of nodes)
      assert.match(
        start.stdout,
        new RegExp(`plan: edge-flip of route-proxy on ${node}: every gate is predicted ok`),
      );
    assert.doesNotMatch(start.stdout + start.stderr, /\[y\/N\]/);
    assert.match(
      start.stdout,
      new RegExp(`started ${fleetId} \\(edge-flip fleet: canary ${canary}, then one at a time: ${other}\\)`),
    );
    assert.match(start.stdout, /^rules: approvals canary-then-waves \(/m);
    const fleet = world.client.workflow.getHandle(fleetId);
    await statusWhen(fleet, waitingAt(canary));
    await untilApproval(world, canary);
    await statusWhen(fleet, (s) => s.waiting?.verdict === 'approval');

    const status = await mesh(world, 'status', 'fleet-route-proxy');
    assert.equal(status.code, 3, status.stderr);
    assert.match(
      status.stdout,
      new RegExp(
        `${fleetId}  edge-flip on fleet \\(module route-proxy\\), started by alice: waiting at ${canary}`,
      ),
    );
    assert.match(
      status.stdout,
      new RegExp(`${canary} +waiting .*waits at approve-stop-predecessor \\(approval\\)`),
    );
    assert.match(status.stdout, new RegExp(`${other} +pending`));
    assert.match(status.stdout, new RegExp(`${canary} waits at approve-stop-predecessor \\(approval\\)`));

    const list = await mesh(world, 'list', '--waiting');
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, new RegExp(`${fleetId} +edge-flip +fleet +waiting +${canary}`));
    assert.match(
      list.stdout,
      new RegExp(`${runbookWorkflowId(canary)} +edge-flip +${canary} +waiting +approve-stop-predecessor`),
    );

    const decided = await mesh(world, 'decide', canary, 'approve', '--as', 'bob');
    assert.equal(decided.code, 0, decided.stderr);
    // The CLI's default approvals: once the canary completed, one approval for the rest, at the fleet.
    await statusWhen(fleet, waitingAt('approve-waves'));
    const byStarter = await mesh(world, 'approve', 'fleet-route-proxy', 'approve-waves', '--as', 'alice');
    assert.equal(byStarter.code, 2, byStarter.stderr);
    assert.match(byStarter.stderr, /may not also approve approve-waves \(four eyes\)/);
    const waves = await mesh(world, 'approve', 'fleet-route-proxy', 'approve-waves', '--as', 'bob');
    assert.equal(waves.code, 0, waves.stderr);
    const watch = await mesh(world, 'watch', fleetId);
    assert.equal(watch.code, 0, watch.stderr);
    assert.match(watch.stdout, /completed: route-proxy on .*: 2 of 2 completed/);
    const done = await fleet.query(statusQuery);
    assert.deepEqual(
      done.steps.map((s) => [s.name, s.state]),
      [
        [canary, 'done'],
        ['approve-waves', 'done'],
        [other, 'done'],
      ],
    );
    const own = await world.client.workflow.getHandle(runbookWorkflowId(other)).query(statusQuery);
    assert.match(
      own.steps.find((s) => s.name === 'approve-stop-predecessor')?.note ?? '',
      /^approved for the fleet by bob \(approve-waves of runbook-fleet-route-proxy/,
    );
  });
});
