import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { WorkflowNotFoundError } from '@temporalio/client';
import { LABEL } from '../../docker/labels';
import { acquireLock } from '../../mesh/local';
import { waitForApplyReport } from '../../mesh/wait-for-apply';
import { runbookWorkflowId } from '../../workflows/contracts';
import { PlanReport } from '../../workflows/plan-report';
import { FROM, seedForge, TO } from '../support/data-move';
import { edgeFlipArgs, seedEdgeFlip } from '../support/edge-flip-seed';
import { meshRunbook } from '../support/mesh-cli';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';

const plan = (world: RunbookWorld, ...args: string[]) => meshRunbook(world, 'plan', ...args);

/** `data-path-move` and its options for the forge move, as an operator types them after `plan`. */
const moveArgs = (node: string, module: string) => [
  'data-path-move',
  '--node',
  node,
  '--module',
  module,
  '--from',
  FROM,
  '--to',
  TO,
];

/** Everything a plan could change: the mesh's files, the node's inbox and disk, its containers. */
async function snapshot(world: RunbookWorld, node: string) {
  const { layout } = world.mesh;
  // The node's agent removes a push from its inbox after it saved the report: let it finish first.
  const release = await acquireLock(layout.nodeLock(node), { timeoutMs: 60_000 });
  await release();
  const { hostRoot } = await world.mesh.nodeState(node);
  const disk = (await readdir(hostRoot, { recursive: true })).sort().join('\n');
  const containers = await world.engine.listByLabels({ [LABEL.node]: node });
  return {
    controller: createHash('sha256')
      .update(await readFile(layout.controllerFile))
      .digest('hex'),
    agent: createHash('sha256')
      .update(await readFile(layout.nodeStateFile(node)))
      .digest('hex'),
    inbox: await readdir(layout.inboxDir(node)),
    disk: createHash('sha256').update(disk).digest('hex'),
    containers: containers.map((c) => `${c.Names[0]} ${c.Id} ${c.State} created ${c.Created}`).sort(),
  };
}

async function assertNoRunbook(world: RunbookWorld, node: string): Promise<void> {
  await assert.rejects(
    world.client.workflow.getHandle(runbookWorkflowId(node)).describe(),
    WorkflowNotFoundError,
  );
}

const step = (report: PlanReport, name: string) => report.steps.find((s) => s.name === name);

describe('mesh runbook plan on the real local mesh', () => {
  it('predicts take with the three leftover dirs on a node with the novox leftovers (exit 3), changing nothing', async () => {
    await using world = await runbookWorld({ worker: 'none' });
    const input = await seedEdgeFlip(world, { leftovers: true });
    const before = await snapshot(world, input.node);

    const text = await plan(world, ...edgeFlipArgs(input));
    assert.equal(text.code, 3, text.stderr);
    assert.ok(
      text.stdout.includes(
        `you will be asked to \`take\` route-proxy: /var/lib/route-proxy/{www,ca,dns} exist on ${input.node}`,
      ),
      text.stdout,
    );
    assert.match(text.stdout, /^ {2}5\. gate-apply +held \[gate\]/m);

    const json = await plan(world, ...edgeFlipArgs(input), '--json');
    assert.equal(json.code, 3, json.stderr);
    const report = PlanReport.parse(JSON.parse(json.stdout));
    assert.deepEqual([report.outcome, report.exitCode, report.refusals], ['decision', 3, []]);
    assert.deepEqual(
      report.holds.map((h) => h.resource),
      [
        'route-proxy/dir:/var/lib/route-proxy/www',
        'route-proxy/dir:/var/lib/route-proxy/ca',
        'route-proxy/dir:/var/lib/route-proxy/dns',
        'route-proxy/container:edge',
        'route-proxy/container:ca',
        'route-proxy/container:dns',
      ],
    );
    assert.deepEqual(
      report.decisions.map((d) => [d.step, d.action]),
      [['gate-apply', 'take']],
    );
    assert.deepEqual(
      report.steps.map((s) => s.name),
      [
        'locks',
        'preflight',
        'assign-successor',
        'push',
        'gate-apply',
        'take',
        'verify-successor',
        'probe-successor',
        'approve-stop-predecessor',
        'recheck-successor',
        'stop-predecessor',
        'probe-public',
        'unassign-predecessor',
        'gate-clean',
      ],
    );
    assert.equal(step(report, 'take')?.predicted, 'runs');

    assert.deepEqual(await snapshot(world, input.node), before, 'the plan changed the node');
    await assertNoRunbook(world, input.node);
  });

  it('predicts every gate ok on a clean node (exit 0)', async () => {
    await using world = await runbookWorld({ worker: 'none' });
    const input = await seedEdgeFlip(world, { leftovers: false });
    const before = await snapshot(world, input.node);
    const outcome = await plan(world, ...edgeFlipArgs(input), '--json');
    assert.equal(outcome.code, 0, outcome.stdout);
    const report = PlanReport.parse(JSON.parse(outcome.stdout));
    assert.deepEqual([report.outcome, report.holds, report.decisions], ['ok', [], []]);
    assert.equal(step(report, 'gate-apply')?.predicted, 'ok');
    assert.equal(step(report, 'take')?.predicted, 'skipped');
    assert.deepEqual(await snapshot(world, input.node), before);
    await assertNoRunbook(world, input.node);
  });

  it('predicts the refusal of a flip whose predecessor does not serve (exit 2)', async () => {
    await using world = await runbookWorld({ worker: 'none' });
    const input = await seedEdgeFlip(world);
    const outcome = await plan(world, ...edgeFlipArgs({ ...input, predecessor: 'nginx' }), '--json');
    assert.equal(outcome.code, 2, outcome.stdout);
    const report = PlanReport.parse(JSON.parse(outcome.stdout));
    assert.equal(report.outcome, 'refused');
    assert.match(report.refusals[0] ?? '', /nginx/);
    assert.equal(step(report, 'preflight')?.predicted, 'refused');
    assert.equal(step(report, 'push')?.predicted, 'not-reached');
  });

  it('predicts the forge incident: the container on the old path will not be recreated (exit 3)', async () => {
    await using world = await runbookWorld({ worker: 'none' });
    const forge = await seedForge(world);
    const before = await snapshot(world, forge.node);
    const args = moveArgs(forge.node, forge.module);
    const outcome = await plan(world, ...args, '--json');
    assert.equal(outcome.code, 3, outcome.stdout);
    const report = PlanReport.parse(JSON.parse(outcome.stdout));
    assert.deepEqual(
      report.unrecreated.map((c) => [c.name, c.state, c.from, c.to, c.upgradePolicy]),
      [[forge.web, 'running', FROM, TO, 'roll-out']],
    );
    assert.deepEqual(
      report.pathUsers.map((u) => [u.name, u.module, u.source]),
      [[forge.web, forge.module, FROM]],
    );
    assert.deepEqual(
      report.decisions.map((d) => [d.step, d.action]),
      [['gate-apply', 'recreate']],
    );
    assert.equal(step(report, 'gate-apply')?.predicted, 'unrecreated-volume');
    assert.deepEqual(await snapshot(world, forge.node), before);
    await assertNoRunbook(world, forge.node);
  });

  it('predicts the refusal of a move of a module on two nodes without --nodes (exit 2)', async () => {
    await using world = await runbookWorld({ worker: 'none' });
    const forge = await seedForge(world);
    const second = world.nodeName();
    await world.mesh.createNode(second, { adopted: false });
    await world.mesh.assign(forge.module, second);
    const receipt = await world.mesh.push(second);
    await waitForApplyReport(world.mesh, second, receipt.pushId, { timeoutMs: 120_000 });
    const args = moveArgs(forge.node, forge.module);

    const outcome = await plan(world, ...args);
    assert.equal(outcome.code, 2, outcome.stdout);
    const both = [forge.node, second].sort();
    assert.ok(outcome.stdout.includes(`${forge.module} is assigned to ${both.join(', ')}`), outcome.stdout);
    assert.ok(outcome.stdout.includes(`--nodes ${both.join(',')}`), outcome.stdout);
    const json = PlanReport.parse(JSON.parse((await plan(world, ...args, '--json')).stdout));
    assert.deepEqual([json.outcome, json.moduleNodes], ['refused', both]);
    // The data dir exists on the second node (the push made it): named, the move is predicted for both.
    const named = await plan(world, ...args, '--nodes', both.join(','), '--json');
    assert.equal(named.code, 3, named.stdout);
    const report = PlanReport.parse(JSON.parse(named.stdout));
    assert.deepEqual(report.nodes.sort(), both);
    assert.deepEqual(
      report.unrecreated.map((c) => c.node).sort(),
      both,
      'each node keeps its container on the old path',
    );
    await assertNoRunbook(world, forge.node);
  });

  it('refuses bad input with one sentence, a suggestion and exit 2', async () => {
    await using world = await runbookWorld({ worker: 'none' });
    const cases: [string[], RegExp][] = [
      [['edge-flp'], /^error: There is no runbook kind "edge-flp"/],
      [[], /^error: Name the kind of runbook to plan: edge-flip and data-path-move\.$/],
      [
        [
          'data-path-move',
          '--node',
          'n1',
          '--module',
          'forge',
          '--from',
          '/srv/forge',
          '--to',
          '/srv/forge/new',
        ],
        /^error: The target path \/srv\/forge\/new lies inside the source path \/srv\/forge/,
      ],
      [
        edgeFlipArgs({
          node: 'Bad_Node',
          module: 'route-proxy',
          predecessor: 'caddy',
          publicNames: ['example.org'],
          publicAddress: 'http://127.0.0.1:80',
          successorAddress: 'http://127.0.0.1:81',
          successorMarker: 'served by route-proxy',
          predecessorMarker: 'served by caddy',
          startedBy: 'alice',
        }),
        /^error: --node "Bad_Node" is invalid/,
      ],
    ];
    for (const [args, sentence] of cases) {
      const outcome = await plan(world, ...args);
      assert.equal(outcome.code, 2, `${args.join(' ')}: ${outcome.stderr}`);
      assert.equal(outcome.stdout, '');
      const lines = outcome.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 2, outcome.stderr);
      assert.match(lines[0] ?? '', sentence);
    }
    const unknownNode = world.nodeName();
    const outcome = await plan(world, ...moveArgs(unknownNode, 'forge'), '--json');
    assert.equal(outcome.code, 2, outcome.stderr);
    assert.equal(PlanReport.parse(JSON.parse(outcome.stdout)).outcome, 'refused');
  });
});
