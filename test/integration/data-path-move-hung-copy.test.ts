import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { History } from '@temporalio/common/lib/proto-utils';
import { hostPathOnNode } from '../../docker/placement';
import { dataPathMove } from '../../workflows';
import { RunbookPolicy } from '../../workflows/policy';
import { exists, FROM, moveInput, seedForge } from '../support/data-move';
import { FrozenDisk } from '../support/frozen-disk';
import { meshRunbook } from '../support/mesh-cli';
import { runbookWorld } from '../support/runbook-world';
import { closedFailing, decide, httpBody, statusWhen, stepState, waitingAt } from '../support/runbooks';

/**
 * A copy hung in the node's file system (a frozen or network mount) never hears that the runbook aborted:
 * its call does not return, so it never reaches the point where it would stop. The abort used to wait for
 * it before any undo step (so that remove-copy never races a copy still writing into B), for as long as it
 * hung, up to the copy's 24 h deadline, with the module stopped. Now it waits the policy's
 * cancelledWorkGrace, then starts the module on A again and restores its policy, and only remove-copy waits,
 * at the end of the undo, until the copy has really stopped.
 *
 * The hang is real: B is on an ext4 file system of the test's own, frozen with `fsfreeze` before the move
 * starts, so the copy's first write (creating B) waits in the kernel until the test thaws it. Not SIGSTOP:
 * the copy runs inside the worker process (libuv's thread pool), and a stopped worker stops beating, so
 * Temporal times its activity out after 10 s, a dead worker, not a live one whose call hangs.
 */

const GRACE_MS = 2_000;
const WAIT_MS = 60_000;
const TO = '/mnt/frozen/forge';

/** The history's events of an activity type: when it was scheduled and how it ended, by event id. */
function activityEvents(history: History, type: string): { scheduled: number[]; ended: number[] } {
  const events = history.events ?? [];
  const scheduled = events
    .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type)
    .map((e) => Number(e.eventId));
  const ended = events.flatMap((e) => {
    const end =
      e.activityTaskCompletedEventAttributes ??
      e.activityTaskCanceledEventAttributes ??
      e.activityTaskFailedEventAttributes ??
      e.activityTaskTimedOutEventAttributes;
    return end && scheduled.includes(Number(end.scheduledEventId)) ? [Number(e.eventId)] : [];
  });
  return { scheduled, ended };
}

describe('an abort while the copy hangs in a frozen file system (real Temporal, Docker, fsfreeze)', () => {
  it('starts the module on A again after the grace; remove-copy waits, saying so, until the copy has stopped', async () => {
    await using world = await runbookWorld({
      deps: { policy: RunbookPolicy.parse({ cancelledWorkGraceMs: GRACE_MS, stalledAfterMs: 1_000 }) },
    });
    const forge = await seedForge(world);
    await using disk = await FrozenDisk.mount(
      hostPathOnNode(forge.hostRoot, '/mnt/frozen'),
      join(world.stateDir, 'frozen.img'),
    );
    const hostTo = hostPathOnNode(forge.hostRoot, TO);
    await disk.freeze();
    const handle = await world.start(dataPathMove, moveInput(forge, { to: TO }));
    // The copy's first write into B waits in the kernel; its worker still beats for it: shown stalled.
    await statusWhen(handle, (s) => s.stalled?.step === 'copy', WAIT_MS);

    await handle.cancel();
    const passed = await statusWhen(
      handle,
      (s) =>
        stepState(s, 'restart-on-old-path') === 'compensated' &&
        stepState(s, 'unfreeze-policy') === 'compensated',
      WAIT_MS,
    );
    // The copy still hangs (B is frozen), and the module serves from A again, its policy back.
    assert.equal(passed.phase, 'running');
    const inspected = await world.engine.inspect(forge.web);
    assert.equal(inspected?.State.Running, true);
    assert.deepEqual(
      inspected?.Mounts.map((m) => m.Source),
      [forge.hostFrom],
    );
    assert.match(await httpBody(`http://127.0.0.1:${forge.port}`), /served by forge-/);
    assert.equal((await world.mesh.moduleSpec(forge.module)).upgradePolicy, 'roll-out');
    const copy = passed.steps.find((s) => s.name === 'copy');
    assert.equal(copy?.state, 'running');
    assert.match(
      copy?.note ?? '',
      new RegExp(
        `^cancelled at \\d\\d:\\d\\d:\\d\\d UTC, but its work on ${forge.node} did not stop within 2\\.0s \\(a call hung in the node's file system: a frozen or network mount\\?\\); the undo goes on without it, and remove-copy waits at its end until it has stopped$`,
      ),
    );
    const removal = await statusWhen(handle, (s) => stepState(s, 'remove-copy') === 'running', WAIT_MS);
    const waits = `waits until the cancelled copy on ${forge.node} \\(cancelled at \\d\\d:\\d\\d:\\d\\d UTC\\) has stopped: ${forge.module} runs on ${FROM} again; ${TO} is removed once nothing writes into it any more`;
    assert.match(removal.steps.find((s) => s.name === 'remove-copy')?.note ?? '', new RegExp(`^${waits}$`));
    const text = await meshRunbook(world, 'status', forge.node);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`remove-copy.*${waits}`));

    // The file system answers again: the copy hears its cancellation and stops, and only then is B removed.
    await disk.thaw();
    const { status } = await closedFailing(handle);
    assert.equal(status.phase, 'aborted', status.outcome);
    assert.equal(stepState(status, 'remove-copy'), 'compensated');
    assert.match(
      status.steps.find((s) => s.name === 'remove-copy')?.note ?? '',
      new RegExp(
        `^removed ${TO} once the cancelled copy on ${forge.node} \\(cancelled at .*\\) had stopped$`,
      ),
    );
    assert.equal(await exists(hostTo), false, 'B removed');
    assert.equal(await exists(join(forge.hostFrom, 'index.html')), true, 'A kept');
    assert.equal((await world.engine.inspect(forge.web))?.State.Running, true);

    // In the history: the module started again before the copy ended, and B's removal came after it.
    const history = await handle.fetchHistory();
    const copyTree = activityEvents(history, 'copyTree');
    const start = activityEvents(history, 'startContainers');
    const remove = activityEvents(history, 'removeTree');
    assert.equal(copyTree.ended.length, 1, 'the copy ended once');
    assert.ok((start.ended[0] ?? Infinity) < (copyTree.ended[0] ?? 0), 'restarted on A while the copy hung');
    assert.ok(
      (remove.scheduled[0] ?? 0) > (copyTree.ended[0] ?? Infinity),
      'B removed only after the copy ended',
    );
  });

  it('a catch-up hung after the switch: the module starts again as it was while the undo waits; keep catches up once it stopped', async () => {
    await using world = await runbookWorld({
      deps: { policy: RunbookPolicy.parse({ cancelledWorkGraceMs: GRACE_MS, stalledAfterMs: 1_000 }) },
    });
    const forge = await seedForge(world);
    await using disk = await FrozenDisk.mount(
      hostPathOnNode(forge.hostRoot, '/mnt/frozen'),
      join(world.stateDir, 'frozen.img'),
    );
    const hostTo = hostPathOnNode(forge.hostRoot, TO);
    const handle = await world.start(dataPathMove, moveInput(forge, { to: TO }));
    await statusWhen(handle, waitingAt('gate-apply'), WAIT_MS);
    // Written on A by the container the push left there: the catch-up must bring it into B, and hangs.
    await writeFile(join(forge.hostFrom, 'written-on-a.txt'), 'written on A before the recreate\n');
    await disk.freeze();
    await decide(handle, 'recreate', 'gate-apply');
    await statusWhen(handle, (s) => s.stalled?.step === 'catch-up', WAIT_MS);

    await handle.cancel();
    const asked = await statusWhen(handle, waitingAt('after-switch'), WAIT_MS);
    assert.match(
      asked.steps.find((s) => s.name === 'catch-up')?.note ?? '',
      /^cancelled at .*, but its work on .* did not stop within 2\.0s .*; the undo goes on without it$/,
    );
    // The catch-up still hangs, and the module serves as it was (on A) while the operator decides.
    const onA = await world.engine.inspect(forge.web);
    assert.equal(onA?.State.Running, true);
    assert.deepEqual(
      onA?.Mounts.map((m) => m.Source),
      [forge.hostFrom],
    );
    assert.match(await httpBody(`http://127.0.0.1:${forge.port}`), /served by forge-/);

    await decide(handle, 'keep', 'after-switch');
    const waiting = await statusWhen(
      handle,
      (s) =>
        /^waits until the cancelled catch-up/.test(s.steps.find((x) => x.name === 'switch-back')?.note ?? ''),
      WAIT_MS,
    );
    assert.match(
      waiting.steps.find((s) => s.name === 'switch-back')?.note ?? '',
      new RegExp(
        `^waits until the cancelled catch-up on ${forge.node} \\(cancelled at .* UTC\\) has stopped: ${forge.module} runs as it was meanwhile; keep then catches up and recreates it on ${TO}$`,
      ),
    );
    assert.equal((await world.engine.inspect(forge.web))?.State.Running, true, 'still serving');

    await disk.thaw();
    const { status } = await closedFailing(handle);
    assert.equal(status.phase, 'aborted', status.outcome);
    assert.equal(stepState(status, 'switch-back'), 'compensated');
    const onB = await world.engine.inspect(forge.web);
    assert.equal(onB?.State.Running, true);
    assert.deepEqual(
      onB?.Mounts.map((m) => m.Source),
      [hostTo],
    );
    assert.equal(
      await readFile(join(hostTo, 'written-on-a.txt'), 'utf8'),
      'written on A before the recreate\n',
      "keep's catch-up brought A's write",
    );
  });
});
