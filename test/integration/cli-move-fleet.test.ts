import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { hostPathOnNode } from '../../docker/placement';
import { runbookWorkflowId } from '../../workflows/contracts';
import { fleetWorkflowId } from '../../workflows/fleet/contracts';
import { FROM, TO } from '../support/data-move';
import { fleetEnded, seedModuleOnNodes } from '../support/data-move-fleet';
import { nodeStatus } from '../support/edge-flip-fleet';
import { meshRunbook as mesh } from '../support/mesh-cli';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { decide, statusWhen, waitingAt } from '../support/runbooks';

/** Whether Temporal knows a run under `id` (each test's module and nodes are its own). */
function known(world: RunbookWorld, id: string): Promise<boolean> {
  return world.client.workflow
    .getHandle(id)
    .describe()
    .then(
      () => true,
      () => false,
    );
}

describe('mesh runbook start data-path-move --nodes: a fleet of moves (real Temporal, real Docker, the CLI as a subprocess)', () => {
  it('refuses a bad fleet with one sentence, a suggestion and exit 2, and starts nothing', async () => {
    await using world = await runbookWorld();
    const { module, nodes, roots } = await seedModuleOnNodes(world, 3);
    const [a, b, c] = nodes as [string, string, string];
    const move = ['data-path-move', '--module', module, '--from', FROM, '--to', TO, '--as', 'alice'];
    const cases: [string[], RegExp][] = [
      [['--nodes', `${a},${b}`], new RegExp(`^error: ${module} is assigned to ${c} too; `)],
      [['--nodes', `${a},${b},${c},tnope`], /^error: --nodes names tnope, where .* is not assigned\.$/],
      [['--nodes', `${a},${a}`], new RegExp(`^error: --nodes names ${a} twice`)],
      [
        ['--node', a, '--nodes', `${a},${b},${c}`, '--wave-size', '2'],
        /^error: --node .* starts one runbook, and the fleet options/,
      ],
      [
        ['--nodes', `${a},${b},${c}`, '--canary', 'tnope'],
        /^error: --canary tnope is not one of the fleet's nodes/,
      ],
      [
        ['--nodes', `${a},${b},${c}`, '--approvals', 'nobody'],
        /^error: --approvals "nobody" is not a fleet approval policy/,
      ],
      [[], /^error: Name the node whose data moves with --node, or a fleet with --nodes a,b,c\.$/],
    ];
    for (const [extra, sentence] of cases) {
      const outcome = await mesh(world, 'start', ...move, ...extra);
      assert.equal(outcome.code, 2, `${extra.join(' ')}: exit 2 expected; stderr: ${outcome.stderr}`);
      assert.equal(outcome.stdout, '');
      const lines = outcome.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 2, `one sentence and one suggestion: ${outcome.stderr}`);
      assert.match(lines[0] ?? '', sentence);
    }
    // What a node's own preflight would refuse (B not empty on b) is refused before the fleet starts.
    await mkdir(hostPathOnNode(roots[1] as string, TO), { recursive: true });
    await writeFile(join(hostPathOnNode(roots[1] as string, TO), 'stray.txt'), 'not the store\n');
    const refused = await mesh(world, 'start', ...move, '--nodes', `${a},${b},${c}`);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(
      refused.stderr,
      new RegExp(
        `^error: Not started: preflight would refuse data-path-move of ${module} on ${a}: .*${b}.*stray\\.txt`,
      ),
    );
    assert.equal(await known(world, fleetWorkflowId(module)), false, 'no fleet started');
    for (const node of nodes) assert.equal(await known(world, runbookWorkflowId(node)), false, node);
  });

  it("starts the fleet (canary-only): the canary's removal stands for the later nodes, the policy comes back", async () => {
    await using world = await runbookWorld();
    const { module, nodes } = await seedModuleOnNodes(world, 3);
    const [canary, b, c] = nodes as [string, string, string];
    world.owns(`fleet-${module}`);
    const start = await mesh(
      world,
      'start',
      ...['data-path-move', '--module', module, '--from', FROM, '--to', TO, '--as', 'alice'],
      ...['--nodes', `${b},${canary},${c}`, '--canary', canary, '--approvals', 'canary-only', '--detach'],
    );
    assert.equal(start.code, 0, start.stderr);
    assert.match(
      start.stdout,
      new RegExp(
        `started ${fleetWorkflowId(module)} \\(data-path-move fleet of ${module}, ${FROM} → ${TO}: canary ${canary}, then one at a time: ${b} \\| ${c}\\)`,
      ),
    );
    assert.match(start.stdout, /^rules: approvals canary-only \(/m);
    const fleet = world.client.workflow.getHandle(fleetWorkflowId(module));
    const own = world.client.workflow.getHandle(runbookWorkflowId(canary));
    await statusWhen(own, waitingAt('approve-remove-old-data'), 120_000);
    await decide(own, 'remove', undefined, 'bob');
    const done = await fleetEnded(fleet);
    assert.equal(done.phase, 'completed', `${done.outcome} ${JSON.stringify(done.waiting)}`);
    for (const node of [b, c]) {
      const status = await nodeStatus(world, node);
      const removal = status.decisions.find((d) => d.gate === 'approve-remove-old-data');
      assert.equal(removal?.by, 'bob', `${node} removed A on the canary's approval`);
      assert.match(
        removal?.comment ?? '',
        new RegExp(`^the fleet's approval \\(approve-remove-old-data of ${runbookWorkflowId(canary)}\\)`),
      );
    }
    assert.equal((await world.mesh.moduleSpec(module)).upgradePolicy, 'roll-out');
    const status = await mesh(world, 'status', fleetWorkflowId(module));
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /completed/);
  });
});
