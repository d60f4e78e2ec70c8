import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { dataPathMove } from '../../workflows';
import type { RunbookStatus } from '../../workflows/contracts';
import { everyRun } from '../../workflows/runbook/step-marks';
import {
  activityResults,
  addTrickyEntries,
  digestDifferences,
  exists,
  FROM,
  moveInput,
  scheduledActivities,
  seedForge,
  stepTime,
  TO,
  treeDigest,
  type Forge,
} from '../support/data-move';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { decide, statusWhen, waitingAt } from '../support/runbooks';

/**
 * The data-path-move runbook end to end: real Temporal dev server, the local mesh over real Docker, real
 * files. The local mesh reproduces incident 2 (docs/design.md §1): a push after the mount moved starts the
 * stopped container again as it was, on A, so every move here passes through the unrecreated-volume gate.
 */

const WAIT_MS = 180_000;

/** What Docker says of the forge's container: its id, whether it runs, since when, and what it mounts. */
async function container(world: RunbookWorld, forge: Forge) {
  const info = await world.engine.inspect(forge.web);
  assert.ok(info, `${forge.web} exists`);
  return {
    id: info.Id,
    running: info.State.Running,
    startedAt: Date.parse(info.State.StartedAt),
    sources: info.Mounts.map((m) => m.Source),
  };
}

const policy = async (world: RunbookWorld, forge: Forge) =>
  (await world.mesh.moduleSpec(forge.module)).upgradePolicy;

const served = async (forge: Forge) => (await fetch(`http://127.0.0.1:${forge.port}/index.html`)).text();

describe('data-path-move on a real dev server, the local mesh and Docker', () => {
  it('moves the data: container inspected on B, every file identical, policy restored, A removed after remove', async (t) => {
    await using world = await runbookWorld();
    const forge = await seedForge(world);
    await addTrickyEntries(forge.hostFrom);
    const original = await treeDigest(forge.hostFrom);
    const before = await container(world, forge);
    assert.deepEqual(before.sources, [forge.hostFrom]);
    assert.equal(await policy(world, forge), 'roll-out');

    const handle = await world.start(dataPathMove, moveInput(forge));
    // Decisions are sent as soon as the runbook waits: the measured downtime is the runbook's own.
    const unrecreated = await statusWhen(handle, waitingAt('gate-apply'), WAIT_MS);
    assert.equal(unrecreated.waiting?.verdict, 'unrecreated-volume', unrecreated.waiting?.reason);
    const restartedOnA = await container(world, forge);
    // The push restarted the service on A, where it goes on writing while the runbook waits.
    const lateWrite = 'written-while-waiting.txt';
    await writeFile(join(forge.hostFrom, lateWrite), 'a write the service made on A during the wait\n');
    const originalWithLateWrite = await treeDigest(forge.hostFrom);
    await decide(handle, 'recreate', 'gate-apply');
    const approval = await statusWhen(handle, waitingAt('approve-remove-old-data'), WAIT_MS);
    assert.equal(approval.waiting?.verdict, 'approval');
    assert.deepEqual(approval.waiting?.actions, ['remove', 'keep']);
    assert.match(
      approval.waiting?.reason ?? '',
      new RegExp(`remove deletes ${FROM} on ${forge.node}, keep leaves it`),
    );
    // Before the approval the old data is still there, and the module already runs on B.
    assert.equal(await exists(forge.hostFrom), true, 'A is kept until the approval');
    assert.equal(await policy(world, forge), 'roll-out', 'policy restored before the approval');
    await decide(handle, 'remove', 'approve-remove-old-data');

    const done: RunbookStatus = await handle.result();
    assert.equal(done.phase, 'completed', done.outcome);
    assert.equal(done.outcome, `${forge.module} runs on ${TO} on ${forge.node}; ${FROM} removed`);
    // In the plan's order, the steps the plan runs only on a decision where they ran, each run of push kept.
    assert.deepEqual(
      done.steps.flatMap(everyRun).map((s) => `${s.name}: ${s.state}`),
      [
        'locks: done',
        'preflight: done',
        'freeze-policy: done',
        'stop-containers: done',
        'stop-containers: done',
        // Looked at before the stop, and again before the copy.
        'check-target: done',
        'check-target: done',
        'copy: done',
        'verify-copy: done',
        'record-baseline: done',
        'switch-spec: done',
        'push: done',
        'push: done',
        'gate-apply: done',
        'catch-up: done',
        'recreate: done',
        'restore-policy: done',
        'approve-remove-old-data: done',
        'remove-old-data: done',
      ],
    );
    const pushes = everyRun(done.steps.find((s) => s.name === 'push') ?? assert.fail('no push step'));
    assert.match(pushes[0]?.note ?? '', new RegExp(`sent \\d+ as ${forge.node}-\\d+`));
    assert.notEqual(pushes[0]?.note, pushes[1]?.note, 'the first push keeps its own line');
    assert.deepEqual(
      done.decisions.map((d) => `${d.gate}: ${d.action} by ${d.by}`),
      ['gate-apply: recreate by bob', 'approve-remove-old-data: remove by bob'],
    );

    // Docker, not the runbook's word: a new container, running, mounting B under the node's host root.
    const after = await container(world, forge);
    assert.notEqual(after.id, before.id, 'recreated');
    assert.equal(after.running, true);
    assert.deepEqual(after.sources, [join(forge.hostRoot, TO)]);
    assert.equal((await world.engine.inspect(forge.web))?.State.Health?.Status, 'healthy', 'healthy on B');
    assert.equal(await served(forge), `served by ${forge.module} from its data dir\n`);

    // Recreate caught the copy up first: the write made on A during the wait is on B.
    assert.equal(
      await readFile(join(forge.hostTo, lateWrite), 'utf8'),
      'a write the service made on A during the wait\n',
    );
    // Every file, directory, symlink and hard link on B as it was on A: content, mode, owner, mtime.
    const copied = await treeDigest(forge.hostTo);
    assert.deepEqual(digestDifferences(originalWithLateWrite, copied), []);
    assert.equal(copied.size, original.size + 1);
    assert.equal(await exists(forge.hostFrom), false, 'A removed after the remove approval');

    const spec = await world.mesh.moduleSpec(forge.module);
    assert.equal(spec.upgradePolicy, 'roll-out');
    assert.deepEqual(spec.dataDirs, [TO]);
    assert.deepEqual(
      spec.containers.flatMap((c) => c.mounts.map((m) => m.hostPath)),
      [TO],
    );

    const history = await handle.fetchHistory();
    const [copy] = activityResults<{ resumed: boolean; bytes: number; bytesCopiedThisAttempt: number }>(
      history,
      'copyTree',
    );
    assert.equal(copy?.resumed, false);
    assert.equal(copy?.bytesCopiedThisAttempt, copy?.bytes);
    const scheduled = scheduledActivities(history);
    assert.equal(scheduled.copyTree, 1, 'the copy');
    assert.equal(
      scheduled.catchUpCopy,
      1,
      'then the catch-up before recreating on B: only what changed on A',
    );
    assert.equal(scheduled.verifyTree, 1);
    assert.equal(scheduled.removeStaleContainers, 1, 'the container on A removed, for mesh to recreate');
    assert.equal(scheduled.recreateContainers, undefined, 'the runbook creates no container itself');
    assert.equal(scheduled.removeTree, 1, 'only A removed, and only once');
    assert.equal(scheduled.startContainers, undefined, 'no compensation ran');

    // Downtime, from the runbook's own step times and Docker's start time of the container on B.
    const stopped = stepTime(done, 'stop-containers', 'startedAt');
    const onB = stepTime(done, 'recreate', 'endedAt');
    const verified = stepTime(done, 'gate-apply', 'endedAt');
    const recreating = stepTime(done, 'recreate', 'startedAt');
    const ms = (from: number, to: number) => `${to - from} ms`;
    t.diagnostic(
      [
        `stop-containers start → container running on B (Docker StartedAt) ${ms(stopped, after.startedAt)}`,
        `→ recreate step done ${ms(stopped, onB)}`,
        `→ gate-apply ok (healthy on B, verified) ${ms(stopped, verified)}`,
        `of which: stopped until the push restarted it on A ${ms(stopped, restartedOnA.startedAt)}`,
        `recreate start → running on B ${ms(recreating, after.startedAt)}`,
        `copy ${ms(stepTime(done, 'copy', 'startedAt'), stepTime(done, 'copy', 'endedAt'))}`,
        `verify ${ms(stepTime(done, 'verify-copy', 'startedAt'), stepTime(done, 'verify-copy', 'endedAt'))}`,
      ].join('; '),
    );
    assert.ok(after.startedAt >= stopped, 'the container on B started after the stop');
  });

  it('incident replay: waits at unrecreated-volume, a build meanwhile recreates nothing, recreate completes; keep leaves A', async (t) => {
    await using world = await runbookWorld();
    const forge = await seedForge(world);
    const original = await treeDigest(forge.hostFrom);
    const handle = await world.start(dataPathMove, moveInput(forge));

    const waiting = await statusWhen(handle, waitingAt('gate-apply'), WAIT_MS);
    assert.equal(waiting.phase, 'waiting');
    assert.equal(waiting.waiting?.verdict, 'unrecreated-volume');
    const reason = waiting.waiting?.reason ?? '';
    // One sentence naming the container, the host path it mounts now and the one it should mount.
    assert.ok(reason.includes(forge.web), reason);
    assert.ok(reason.includes(`mounts ${FROM} (an old path) at /data instead of ${TO}`), reason);
    assert.match(reason, /^1 running container was not recreated on the desired host paths: /);
    t.diagnostic(`waiting at gate-apply: ${reason} [${waiting.waiting?.actions.join(', ')}]`);
    assert.ok(waiting.waiting?.actions.includes('recreate'));
    assert.ok(waiting.waiting?.actions.includes('abort'));
    for (const later of ['restore-policy', 'approve-remove-old-data', 'remove-old-data'])
      assert.equal(waiting.steps.find((s) => s.name === later)?.state, 'pending', later);

    // The incident itself: the push reported success, yet the container runs on A.
    const onA = await container(world, forge);
    assert.equal(onA.running, true);
    assert.deepEqual(onA.sources, [forge.hostFrom]);
    assert.deepEqual(
      (await world.mesh.moduleSpec(forge.module)).containers[0]?.mounts.map((m) => m.hostPath),
      [TO],
      'the spec already says B',
    );

    // An ordinary build while the runbook waits: the policy is frozen, so it is not a deployment.
    assert.equal(await policy(world, forge), 'manual');
    const build = await world.mesh.build(forge.module);
    assert.equal(build.upgradePolicy, 'manual');
    assert.deepEqual(build.recreated, []);
    assert.equal(build.images.length, 1);
    const afterBuild = await container(world, forge);
    assert.equal(afterBuild.id, onA.id, 'the build did not recreate the container');
    assert.equal(afterBuild.startedAt, onA.startedAt, 'nor restart it');
    assert.deepEqual(afterBuild.sources, [forge.hostFrom]);
    assert.equal(await policy(world, forge), 'manual');
    const still = await statusWhen(handle, waitingAt('gate-apply'));
    assert.equal(
      still.waiting?.since,
      waiting.waiting?.since,
      'still the same wait: it never moves on alone',
    );

    await decide(handle, 'recreate', 'gate-apply');
    await statusWhen(handle, waitingAt('approve-remove-old-data'), WAIT_MS);
    const onB = await container(world, forge);
    assert.notEqual(onB.id, onA.id);
    assert.deepEqual(onB.sources, [forge.hostTo]);
    await decide(handle, 'keep', 'approve-remove-old-data');

    const done: RunbookStatus = await handle.result();
    assert.equal(done.phase, 'completed', done.outcome);
    assert.equal(done.outcome, `${forge.module} runs on ${TO} on ${forge.node}; ${FROM} kept`);
    assert.equal(done.steps.find((s) => s.name === 'remove-old-data')?.state, 'skipped');
    assert.equal(
      done.steps.find((s) => s.name === 'recreate')?.note,
      `removed ${forge.web}; the push has mesh create them on ${TO}`,
    );
    assert.equal(await policy(world, forge), 'roll-out');
    const final = await container(world, forge);
    assert.equal(final.running, true);
    assert.deepEqual(final.sources, [forge.hostTo]);

    // Kept means untouched: A still holds exactly the original data, and B the same.
    assert.deepEqual(digestDifferences(original, await treeDigest(forge.hostFrom)), []);
    assert.deepEqual(digestDifferences(original, await treeDigest(forge.hostTo)), []);
    assert.equal(
      await readFile(join(forge.hostTo, 'index.html'), 'utf8'),
      `served by ${forge.module} from its data dir\n`,
    );
    assert.equal(scheduledActivities(await handle.fetchHistory()).removeTree, undefined);
  });
});

describe('data-path-move never overwrites or deletes what was written on B (the catch-up, real Docker)', () => {
  /** Waits at gate-apply (the container still on A), then writes as a service on B and one on A would. */
  async function writesOnBothSides(world: RunbookWorld) {
    const forge = await seedForge(world);
    const handle = await world.start(dataPathMove, moveInput(forge));
    const waiting = await statusWhen(handle, waitingAt('gate-apply'), WAIT_MS);
    assert.equal(waiting.waiting?.verdict, 'unrecreated-volume');
    await writeFile(join(forge.hostTo, 'b-only.txt'), 'written on B after the switch\n');
    await writeFile(join(forge.hostTo, 'repos/r1/objects/1.obj'), 'changed on B after the switch\n');
    await writeFile(
      join(forge.hostFrom, 'repos/r0/objects/0.obj'),
      'changed on A by the container left there\n',
    );
    return { forge, handle };
  }

  it('recreate brings what changed on A and keeps every write on B', async () => {
    await using world = await runbookWorld();
    const { forge, handle } = await writesOnBothSides(world);
    await decide(handle, 'recreate', 'gate-apply');
    await statusWhen(handle, waitingAt('approve-remove-old-data'), WAIT_MS);
    await decide(handle, 'keep', 'approve-remove-old-data');
    const done: RunbookStatus = await handle.result();
    assert.equal(done.phase, 'completed', done.outcome);
    const onB = (rel: string) => readFile(join(forge.hostTo, rel), 'utf8');
    assert.equal(await onB('b-only.txt'), 'written on B after the switch\n');
    assert.equal(await onB('repos/r1/objects/1.obj'), 'changed on B after the switch\n');
    assert.equal(await onB('repos/r0/objects/0.obj'), 'changed on A by the container left there\n');
    assert.deepEqual((await container(world, forge)).sources, [forge.hostTo]);
  });

  it('a file changed on both sides stops the catch-up naming it; keep-new keeps B’s version and brings the rest', async () => {
    await using world = await runbookWorld();
    const { forge, handle } = await writesOnBothSides(world);
    await writeFile(join(forge.hostFrom, 'repos/r1/objects/1.obj'), 'changed on A too\n');
    await decide(handle, 'recreate', 'gate-apply');
    const conflict = await statusWhen(handle, waitingAt('catch-up'), WAIT_MS);
    assert.deepEqual(conflict.waiting?.actions, ['recheck', 'keep-new', 'start-on-new', 'abort']);
    assert.match(
      conflict.waiting?.reason ?? '',
      new RegExp(
        `^1 path\\(s\\) changed both on ${FROM} and on ${TO} since the copy \\(${forge.node}: repos/r1/objects/1\\.obj\\); nothing was copied\\.`,
      ),
    );
    assert.equal(
      await readFile(join(forge.hostTo, 'repos/r0/objects/0.obj'), 'utf8'),
      'repo 0 object 0\n'.repeat(50),
      'nothing copied while it waits',
    );
    await decide(handle, 'keep-new', 'catch-up');
    await statusWhen(handle, waitingAt('approve-remove-old-data'), WAIT_MS);
    await decide(handle, 'keep', 'approve-remove-old-data');
    const done: RunbookStatus = await handle.result();
    assert.equal(done.phase, 'completed', done.outcome);
    const onB = (rel: string) => readFile(join(forge.hostTo, rel), 'utf8');
    assert.equal(await onB('repos/r1/objects/1.obj'), 'changed on B after the switch\n');
    assert.equal(await onB('b-only.txt'), 'written on B after the switch\n');
    assert.equal(await onB('repos/r0/objects/0.obj'), 'changed on A by the container left there\n');
  });
});

describe('the old data goes only when nothing was written there since the last baseline (real Docker, real files)', () => {
  it('a write on A after the last catch-up: remove is not offered, the write is named, keep leaves A with it', async () => {
    // A writer nobody watches (a cron job, a second container) writes on A once the move is done: here
    // right after restore-policy, the step before the approval, through production's own activity.
    const late = new Map<string, string>();
    await using world = await runbookWorld({
      wrap: (real) => ({
        async setUpgradePolicy(input) {
          await real.setUpgradePolicy(input);
          const file = late.get(input.module);
          if (file && input.policy === 'roll-out') await writeFile(file, 'written on A after the catch-up\n');
        },
      }),
    });
    const forge = await seedForge(world);
    late.set(forge.module, join(forge.hostFrom, 'late.txt'));
    const handle = await world.start(dataPathMove, moveInput(forge));
    await statusWhen(handle, waitingAt('gate-apply'), WAIT_MS);
    await decide(handle, 'recreate', 'gate-apply');
    const asked = await statusWhen(handle, waitingAt('approve-remove-old-data'), WAIT_MS);
    assert.deepEqual(asked.waiting?.actions, ['keep', 'recheck'], asked.waiting?.reason);
    assert.match(
      asked.waiting?.reason ?? '',
      new RegExp(
        `^${forge.module} runs on ${TO}, but ${FROM} was written to since the last baseline \\(${forge.node}: late\\.txt \\(new\\)\\): removing it would lose those writes, so remove is not offered\\.`,
      ),
    );
    assert.ok(
      asked.waiting?.facts.includes(
        `written on ${FROM} since the last baseline: ${forge.node}: late.txt (new)`,
      ),
      asked.waiting?.facts.join('\n'),
    );
    await decide(handle, 'keep', 'approve-remove-old-data');
    const done: RunbookStatus = await handle.result();
    assert.equal(done.phase, 'completed', done.outcome);
    assert.equal(
      await readFile(join(forge.hostFrom, 'late.txt'), 'utf8'),
      'written on A after the catch-up\n',
    );
  });
});

describe('a catch-up conflict leaves the module down; start-on-new starts it on B bringing nothing (real Docker)', () => {
  it('says the module is down, start-on-new runs it on B as B is, and A keeps its changes, named at the approval', async () => {
    await using world = await runbookWorld();
    const forge = await seedForge(world);
    const handle = await world.start(dataPathMove, moveInput(forge));
    await statusWhen(handle, waitingAt('gate-apply'), WAIT_MS);
    const r0 = 'repos/r0/objects/0.obj';
    const r1 = 'repos/r1/objects/1.obj';
    await writeFile(join(forge.hostTo, r1), 'changed on B after the switch\n');
    await writeFile(join(forge.hostFrom, r1), 'changed on A too\n');
    await writeFile(join(forge.hostFrom, r0), 'changed on A by the container left there\n');
    await decide(handle, 'recreate', 'gate-apply');
    const conflict = await statusWhen(handle, waitingAt('catch-up'), WAIT_MS);
    assert.deepEqual(conflict.waiting?.actions, ['recheck', 'keep-new', 'start-on-new', 'abort']);
    assert.match(
      conflict.waiting?.reason ?? '',
      new RegExp(
        `nothing was copied\\. ${forge.module} is down \\(stopped for the catch-up\\) while this waits\\..* start-on-new starts ${forge.module} on ${TO} as ${TO} is, bringing nothing from ${FROM}`,
      ),
    );
    assert.equal((await container(world, forge)).running, false, 'down while it waits, as the sentence says');

    await decide(handle, 'start-on-new', 'catch-up');
    const asked = await statusWhen(handle, waitingAt('approve-remove-old-data'), WAIT_MS);
    const onB = (rel: string) => readFile(join(forge.hostTo, rel), 'utf8');
    assert.equal(await onB(r1), 'changed on B after the switch\n', "B's version stays");
    assert.equal(
      await onB(r0),
      'repo 0 object 0\n'.repeat(50),
      'nothing brought from A, not even what did not conflict',
    );
    const runs = await container(world, forge);
    assert.equal(runs.running, true);
    assert.deepEqual(runs.sources, [forge.hostTo], 'runs on B');
    assert.deepEqual(asked.waiting?.actions, ['keep', 'recheck'], 'A is not offered for removal');
    for (const path of [r0, r1])
      assert.ok(
        asked.waiting?.facts.includes(
          `written on ${FROM} since the last baseline: ${forge.node}: ${path} (changed)`,
        ),
        asked.waiting?.facts.join('\n'),
      );
    await decide(handle, 'keep', 'approve-remove-old-data');
    const done: RunbookStatus = await handle.result();
    assert.equal(done.phase, 'completed', done.outcome);
    assert.equal(
      await readFile(join(forge.hostFrom, r0), 'utf8'),
      'changed on A by the container left there\n',
    );
  });
});
