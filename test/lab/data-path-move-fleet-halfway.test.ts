import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { before, describe, it } from 'node:test';
import type { RunbookStatus } from '../../workflows/contracts';
import { Lab } from '../support/lab';
import { labRunSince, labStatusWhen, seedForge } from '../support/lab-stories';

const NODES = ['forge1', 'edge3'] as const;
const FROM = '/srv/forge';
const TO = '/var/lib/forge';
const MOVE = ['--module', 'forge', '--from', FROM, '--to', TO, '--yes', '--detach'];

const run = promisify(execFile);
const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/** The host's one forge container, as its own engine shows it: running, and what it mounts. */
async function forgeOn(lab: Lab, node: string) {
  const found = await lab.engine(node).listByLabels({ 'org.meshctl.module': 'forge' });
  assert.equal(found.length, 1, `${node}: one forge container`);
  const info = await lab.engine(node).inspect(found[0]?.Id ?? '');
  return { id: found[0]?.Id ?? '', running: info?.State.Running, sources: info?.Mounts.map((m) => m.Source) };
}

/**
 * Move fleets on the production-shaped lab that do not go straight through: forge1 and edge3 sharing one A
 * (edge3's /srv a bind mount of forge1's, standing in for an NFS export mounted on both), and a fleet
 * aborted after its canary, started again.
 */
describe('move fleets that stop halfway on the production-shaped lab', () => {
  let lab: Lab;
  before(async () => {
    lab = await Lab.story();
  });

  it("one A on two hosts: the canary is offered only keep while edge3 serves from it, edge3's own file survives, and edge3 removes it once both moved", async () => {
    for (const node of NODES) await seedForge(lab, node);
    const shared = lab.onDisk('edge3', '/srv');
    await run('mount', ['--bind', lab.onDisk('forge1', '/srv'), shared]);
    try {
      const edge3 = await forgeOn(lab, 'edge3');
      await lab.engine('edge3').docker.getContainer(edge3.id).restart();
      await writeFile(
        lab.onDisk('edge3', `${FROM}/written-by-edge3.txt`),
        'edge3 wrote this on the shared A\n',
      );
      const since = new Date();
      const started = await lab.cli(
        'runbook',
        'start',
        'data-path-move',
        '--nodes',
        NODES.join(','),
        '--approvals',
        'each-node',
        ...MOVE,
      );
      assert.equal(started.code, 0, started.stderr);
      const { client, connection } = await lab.client();
      try {
        const canary = await labRunSince(client, 'runbook-forge1', since);
        const asked: RunbookStatus = await labStatusWhen(
          canary,
          (s) => s.waiting?.gate === 'approve-remove-old-data',
          240_000,
        );
        assert.deepEqual(asked.waiting?.actions, ['keep', 'recheck'], asked.waiting?.reason);
        assert.match(
          asked.waiting?.reason ?? '',
          /but \/srv\/forge is the same directory on edge3 \(a mark left in it here was seen there: .*\), where 1 container\(s\) still use it \(edge3: container forge_web_1 \(running\) mounts \/srv\/forge\): removing it would delete their data/,
        );
        assert.deepEqual((await readdir(lab.onDisk('edge3', FROM))).sort(), [
          'index.html',
          'repos',
          'written-by-edge3.txt',
        ]);
        const keep = await lab.cli('runbook', 'decide', 'forge1', 'keep', '--as', 'carol');
        assert.equal(keep.code, 0, keep.stderr);

        const last = await labRunSince(client, 'runbook-edge3', since);
        const own: RunbookStatus = await labStatusWhen(
          last,
          (s) => s.waiting?.gate === 'approve-remove-old-data',
          240_000,
        );
        assert.ok(own.waiting?.actions.includes('remove'), own.waiting?.reason);
        assert.match(
          own.waiting?.reason ?? '',
          /the same directory as \/srv\/forge on forge1, where nothing uses it any more/,
        );
        const remove = await lab.cli('runbook', 'decide', 'edge3', 'remove', '--as', 'carol');
        assert.equal(remove.code, 0, remove.stderr);
        const fleet = await labRunSince(client, 'runbook-fleet-forge', since);
        const done = await labStatusWhen(fleet, (s) => !['running', 'waiting'].includes(s.phase), 240_000);
        assert.equal(done.phase, 'completed', done.outcome);
      } finally {
        await connection.close();
      }
      for (const node of NODES) {
        const forge = await forgeOn(lab, node);
        assert.equal(forge.running, true, node);
        assert.deepEqual(forge.sources, [lab.onDisk(node, TO)], node);
      }
      assert.equal(
        await readFile(lab.onDisk('edge3', `${TO}/written-by-edge3.txt`), 'utf8'),
        'edge3 wrote this on the shared A\n',
        "edge3's file moved with edge3",
      );
      assert.equal(await exists(lab.onDisk('forge1', FROM)), false, 'the shared A removed, last');
    } finally {
      await run('umount', ['--lazy', shared]);
    }
  });

  it('a fleet aborted after its canary, started again: it moves edge3 and names forge1, on B already, without running it again', async () => {
    await lab.reset();
    for (const node of NODES) await seedForge(lab, node);
    const since = new Date();
    const first = await lab.cli(
      'runbook',
      'start',
      'data-path-move',
      '--nodes',
      NODES.join(','),
      '--approvals',
      'canary-then-waves',
      ...MOVE,
    );
    assert.equal(first.code, 0, first.stderr);
    const { client, connection } = await lab.client();
    try {
      const canary = await labRunSince(client, 'runbook-forge1', since);
      await labStatusWhen(canary, (s) => s.waiting?.gate === 'approve-remove-old-data', 240_000);
      assert.equal((await lab.cli('runbook', 'decide', 'forge1', 'remove', '--as', 'carol')).code, 0);
      const fleet = await labRunSince(client, 'runbook-fleet-forge', since);
      await labStatusWhen(fleet, (s) => s.waiting?.gate === 'approve-move-waves');
      const abort = await lab.cli('runbook', 'decide', 'fleet-forge', 'abort', '--as', 'carol');
      assert.equal(abort.code, 0, abort.stderr);
      const aborted = await labStatusWhen(fleet, (s) => !['running', 'waiting'].includes(s.phase));
      assert.equal(aborted.phase, 'aborted', aborted.outcome);
      const canaryRun = (await canary.describe()).runId;

      const resumedSince = new Date();
      const again = await lab.cli('runbook', 'start', 'data-path-move', '--nodes', NODES.join(','), ...MOVE);
      assert.equal(again.code, 0, again.stderr);
      const edge3 = await labRunSince(client, 'runbook-edge3', resumedSince);
      await labStatusWhen(edge3, (s) => s.waiting?.gate === 'approve-remove-old-data', 240_000);
      assert.equal((await lab.cli('runbook', 'decide', 'edge3', 'remove', '--as', 'carol')).code, 0);
      const resumed = await labRunSince(client, 'runbook-fleet-forge', resumedSince);
      const done = await labStatusWhen(resumed, (s) => !['running', 'waiting'].includes(s.phase), 240_000);
      assert.equal(done.phase, 'completed', done.outcome);
      assert.equal(done.steps.find((s) => s.name === 'forge1')?.state, 'skipped');
      assert.match(done.outcome ?? '', /done before this fleet, not run again: forge1/);
      const latest = await client.workflow.getHandle('runbook-forge1').describe();
      assert.equal(latest.runId, canaryRun, "forge1's runbook did not run again");
    } finally {
      await connection.close();
    }
    for (const node of NODES) {
      const forge = await forgeOn(lab, node);
      assert.equal(forge.running, true, node);
      assert.deepEqual(forge.sources, [lab.onDisk(node, TO)], node);
      assert.match(
        await readFile(lab.onDisk(node, `${TO}/index.html`), 'utf8'),
        new RegExp(`on ${node}\\n$`),
      );
    }
  });
});
