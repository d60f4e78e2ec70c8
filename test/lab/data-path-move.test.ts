import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { before, describe, it } from 'node:test';
import type { PlanReport } from '../../workflows/plan-report';
import { Lab } from '../support/lab';
import { labStatusWhen, pushApplied, seedForge } from '../support/lab-stories';

const NODE = 'forge1';
const FROM = '/srv/forge';
const TO = '/var/lib/forge';

/** The forge's containers on the host's own engine, as its controller labels them. */
async function forgeContainers(lab: Lab) {
  const engine = lab.engine(NODE);
  const found = await engine.listByLabels({ 'org.meshctl.module': 'forge' });
  return Promise.all(
    found.map(async (c) => {
      const info = await engine.inspect(c.Id);
      assert.ok(info);
      return {
        id: info.Id,
        name: info.Name.replace(/^\//, ''),
        running: info.State.Running,
        restart: info.HostConfig.RestartPolicy?.Name,
        memory: info.HostConfig.Memory,
        sources: info.Mounts.map((m) => m.Source),
      };
    }),
  );
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe('the data-path move on the production-shaped lab: recreate through the outside controller', () => {
  let lab: Lab;
  before(async () => {
    lab = await Lab.story();
  });

  it("unrecreated-volume, recreate, remove: exactly one forge container runs on B, the controller's, with its policy; a later push and a roll-out build change nothing", async () => {
    await seedForge(lab, NODE);
    const args = ['--node', NODE, '--module', 'forge', '--from', FROM, '--to', TO];
    const plan = await lab.cli('runbook', 'plan', 'data-path-move', ...args, '--json');
    assert.equal(plan.code, 3, plan.stderr);
    const report = JSON.parse(plan.stdout) as PlanReport;
    assert.equal(report.steps.find((s) => s.name === 'gate-apply')?.predicted, 'unrecreated-volume');
    assert.deepEqual(
      report.unrecreated.map((c) => c.name),
      ['forge_web_1'],
    );

    const started = await lab.cli(
      'runbook',
      'start',
      'data-path-move',
      ...args,
      '--yes',
      '--detach',
      '--json',
    );
    assert.equal(started.code, 0, started.stderr);
    const { client, connection } = await lab.client();
    try {
      const handle = client.workflow.getHandle(`runbook-${NODE}`);
      const stale = await labStatusWhen(handle, (s) => s.waiting?.gate === 'gate-apply');
      assert.equal(stale.waiting?.verdict, 'unrecreated-volume', stale.waiting?.reason);
      assert.equal((await lab.cli('runbook', 'decide', NODE, 'recreate')).code, 0);
      await labStatusWhen(handle, (s) => s.waiting?.gate === 'approve-remove-old-data');
      const remove = await lab.cli('runbook', 'decide', NODE, 'remove', '--as', 'carol');
      assert.equal(remove.code, 0, remove.stderr);
      const done = await labStatusWhen(handle, (s) => s.phase !== 'running' && s.phase !== 'waiting');
      assert.equal(done.phase, 'completed', done.outcome);
    } finally {
      await connection.close();
    }

    const onB = lab.onDisk(NODE, TO);
    const after = await forgeContainers(lab);
    assert.equal(after.length, 1, `exactly one forge container: ${JSON.stringify(after)}`);
    const [web] = after;
    assert.ok(web);
    assert.equal(web.name, 'forge_web_1', "the controller's own name");
    assert.equal(web.running, true);
    assert.equal(web.restart, 'unless-stopped', "the controller's restart policy");
    assert.equal(web.memory, 256 * 1024 * 1024, "the controller's memory limit");
    assert.deepEqual(web.sources, [onB]);
    assert.match(await readFile(`${onB}/index.html`, 'utf8'), /served by forge from its data dir on forge1/);
    assert.equal(await exists(lab.onDisk(NODE, FROM)), false, 'A removed after the approval');

    // Nothing the runbook did is undone or doubled by the controller's own next moves.
    await pushApplied(lab, NODE);
    assert.deepEqual(await forgeContainers(lab), after, 'a later push changes nothing');
    const build = (await lab.meshctl('module', 'build', 'forge')) as { upgradePolicy: string };
    assert.equal(build.upgradePolicy, 'roll-out', 'the policy was restored');
    const rolled = await forgeContainers(lab);
    assert.equal(rolled.length, 1, `one forge container after the roll-out: ${JSON.stringify(rolled)}`);
    assert.equal(rolled[0]?.name, 'forge_web_1');
    assert.equal(rolled[0]?.restart, 'unless-stopped');
    assert.deepEqual(rolled[0]?.sources, [onB]);
  });
});
