import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { before, describe, it } from 'node:test';
import { getWithHost } from '../../activities/probes/http-get';
import type { PlanReport } from '../../workflows/plan-report';
import { Lab } from '../support/lab';
import { edgeFlipArgs, labStatusWhen, PUBLIC_NAMES, PUBLIC_PORT, seedEdges } from '../support/lab-stories';

const NODE = 'novox';

/** What the lab's controller runs of a module on a host, read from that host's own engine. */
async function controllerContainers(lab: Lab, host: string, module: string) {
  const found = await lab.engine(host).listByLabels({ 'org.meshctl.module': module });
  return Promise.all(
    found.map(async (c) => {
      const info = await lab.engine(host).inspect(c.Id);
      assert.ok(info);
      return {
        name: c.Names[0]?.replace(/^\//, ''),
        running: info.State.Running,
        restart: info.HostConfig.RestartPolicy?.Name,
        sources: info.Mounts.map((m) => m.Source).sort(),
      };
    }),
  );
}

describe('the edge flip on the production-shaped lab: Temporal on PostgreSQL, a host per node, mesh outside', () => {
  let lab: Lab;
  before(async () => {
    lab = await Lab.story();
  });

  it("novox's leftovers: plan predicts the hold, the runbook waits for take, approval stops caddy, route-proxy serves", async () => {
    await seedEdges(lab, [NODE, 'forge1'], [NODE]);
    const args = edgeFlipArgs(lab, NODE);

    const plan = await lab.cli('runbook', 'plan', 'edge-flip', ...args, '--json');
    assert.equal(plan.code, 3, plan.stderr);
    const report = JSON.parse(plan.stdout) as PlanReport;
    assert.equal(report.steps.find((s) => s.name === 'gate-apply')?.predicted, 'held');
    assert.deepEqual(
      report.decisions.map((d) => d.action),
      ['take'],
    );
    assert.equal(report.holds.filter((h) => h.module === 'route-proxy').length, 6);

    const started = await lab.cli('runbook', 'start', 'edge-flip', ...args, '--yes', '--detach', '--json');
    assert.equal(started.code, 0, started.stderr);
    const { client, connection } = await lab.client();
    try {
      const handle = client.workflow.getHandle(`runbook-${NODE}`);
      const held = await labStatusWhen(handle, (s) => s.waiting?.gate === 'gate-apply');
      assert.equal(held.waiting?.verdict, 'held', held.waiting?.reason);
      assert.equal(
        (await controllerContainers(lab, NODE, 'route-proxy')).length,
        0,
        'the host held every route-proxy container',
      );
      const take = await lab.cli('runbook', 'decide', NODE, 'take');
      assert.equal(take.code, 0, take.stderr);

      await labStatusWhen(handle, (s) => s.waiting?.gate === 'approve-stop-predecessor');
      const approve = await lab.cli('runbook', 'approve', NODE, 'approve-stop-predecessor', '--as', 'carol');
      assert.equal(approve.code, 0, approve.stderr);
      const done = await labStatusWhen(handle, (s) => s.phase !== 'running' && s.phase !== 'waiting');
      assert.equal(done.phase, 'completed', done.outcome);
    } finally {
      await connection.close();
    }

    // Read on the host itself: its engine, its disk, its public address.
    const successor = await controllerContainers(lab, NODE, 'route-proxy');
    assert.deepEqual(successor.map((c) => c.name).sort(), [
      'route-proxy_ca_1',
      'route-proxy_dns_1',
      'route-proxy_edge_1',
    ]);
    for (const c of successor) {
      assert.equal(c.running, true, `${c.name} runs`);
      assert.equal(c.restart, 'unless-stopped', `${c.name} keeps the controller's restart policy`);
    }
    assert.deepEqual(await controllerContainers(lab, NODE, 'caddy'), [], 'caddy unassigned and removed');
    assert.match(
      await readFile(lab.onDisk(NODE, '/var/lib/route-proxy/www/index.html'), 'utf8'),
      /served by route-proxy on novox/,
    );
    for (const name of PUBLIC_NAMES) {
      const answer = await getWithHost(
        new URL(`http://${lab.host(NODE).ip}:${PUBLIC_PORT}`),
        name,
        5_000,
        true,
      );
      assert.ok(
        'body' in answer && answer.body.includes('served by route-proxy on novox'),
        JSON.stringify(answer),
      );
    }
    // The other host kept its own edge.
    assert.deepEqual(await controllerContainers(lab, 'forge1', 'route-proxy'), []);
    assert.equal((await controllerContainers(lab, 'forge1', 'caddy'))[0]?.running, true);
  });
});
