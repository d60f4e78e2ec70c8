import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { before, describe, it } from 'node:test';
import type { Client } from '@temporalio/client';
import { Lab } from '../support/lab';
import { labStatusWhen, seedForge } from '../support/lab-stories';

const NODES = ['forge1', 'edge3'] as const;
const FROM = '/srv/forge';
const TO = '/var/lib/forge';

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/** The task queues the node's runbook sent its copy and its removal of A to, from its history. */
async function queuesOf(client: Client, node: string, activities: string[]): Promise<string[]> {
  const history = await client.workflow.getHandle(`runbook-${node}`).fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const scheduled = event.activityTaskScheduledEventAttributes;
    const name = scheduled?.activityType?.name ?? '';
    return activities.includes(name) ? [`${name} ${scheduled?.taskQueue?.name ?? '?'}`] : [];
  });
}

describe('a data-path-move fleet on the production-shaped lab: two hosts, each moving its own data', () => {
  let lab: Lab;
  before(async () => {
    lab = await Lab.story();
  });

  it("canary forge1, then edge3 on the fleet's approval: each host's copy on its own worker, its forge recreated by the controller on its own B; the policy back", async () => {
    for (const node of NODES) await seedForge(lab, node);
    const args = ['--nodes', NODES.join(','), '--module', 'forge', '--from', FROM, '--to', TO];
    const started = await lab.cli('runbook', 'start', 'data-path-move', ...args, '--yes', '--detach');
    assert.equal(started.code, 0, started.stderr);
    const { client, connection } = await lab.client();
    try {
      const canary = client.workflow.getHandle('runbook-forge1');
      await labStatusWhen(canary, (s) => s.waiting?.gate === 'approve-remove-old-data');
      const removed = await lab.cli('runbook', 'decide', 'forge1', 'remove', '--as', 'carol');
      assert.equal(removed.code, 0, removed.stderr);
      const fleet = client.workflow.getHandle('runbook-fleet-forge');
      await labStatusWhen(fleet, (s) => s.waiting?.gate === 'approve-move-waves');
      const waves = await lab.cli('runbook', 'approve', 'fleet-forge', 'approve-move-waves', '--as', 'carol');
      assert.equal(waves.code, 0, waves.stderr);
      const done = await labStatusWhen(fleet, (s) => !['running', 'waiting'].includes(s.phase), 240_000);
      assert.equal(done.phase, 'completed', done.outcome);
      for (const node of NODES) {
        const queues = await queuesOf(client, node, ['copyTree', 'verifyTree', 'removeTree']);
        assert.ok(queues.length >= 3, `${node}: ${queues.join(', ')}`);
        for (const queue of queues) assert.match(queue, new RegExp(`@${node}$`), `${node}'s own worker`);
      }
    } finally {
      await connection.close();
    }
    for (const node of NODES) {
      const engine = lab.engine(node);
      const found = await engine.listByLabels({ 'org.meshctl.module': 'forge' });
      assert.equal(found.length, 1, `${node}: exactly one forge container`);
      const info = await engine.inspect(found[0]?.Id ?? '');
      assert.equal(info?.Name, '/forge_web_1', "the controller's own name");
      assert.equal(info?.State.Running, true);
      assert.deepEqual(
        info?.Mounts.map((m) => m.Source),
        [lab.onDisk(node, TO)],
      );
      assert.match(
        await readFile(`${lab.onDisk(node, TO)}/index.html`, 'utf8'),
        new RegExp(`on ${node}\\n$`),
        `${node}'s own data on its own B`,
      );
      assert.equal(await exists(lab.onDisk(node, FROM)), false, `${node}: A removed`);
    }
    const build = (await lab.meshctl('module', 'build', 'forge')) as { upgradePolicy: string };
    assert.equal(build.upgradePolicy, 'roll-out', 'the fleet put the policy back after its last node');
  });
});
