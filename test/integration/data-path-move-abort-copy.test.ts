import assert from 'node:assert/strict';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { dataPathMove } from '../../workflows';
import { addBulkData, exists, moveInput, seedForge } from '../support/data-move';
import { runbookWorld } from '../support/runbook-world';
import { closedFailing } from '../support/runbooks';

/**
 * An abort (a cancellation) while the copy runs. The runbook used to ask for the copy's cancellation and
 * go straight on to its undo steps, so `remove-copy` removed B while the copy, which hears of the
 * cancellation only at its next heartbeat, still wrote into it: files landed in a B the undo had just
 * removed, or the removal failed on a directory that filled up under it. Now the undo starts only once the
 * copy has ended, and the copy stops writing when it hears of the cancellation. Real Temporal, Docker, files.
 */

/**
 * Bulk data the copy needs far longer for than the cancellation takes to reach it (up to the 2 s heartbeat
 * throttle): with 9,600 small files a fast machine copied all of it in that time and the copy ended done.
 */
const SMALL_FILES = 40_000;
/** ~520 MB of them, and 8 MiB packs up to this total. */
const BULK_MIB = 640;
const WAIT_MS = 180_000;
/** Abort once the first 8 MiB packs (copied first, 16 at a time) are in B: early in the copy. */
const ABORT_AFTER = 16 * 2 ** 20;

async function bytesOnDisk(root: string): Promise<number> {
  let total = 0;
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) total += (await lstat(path).catch(() => ({ size: 0 }))).size;
    }
  };
  await walk(root);
  return total;
}

describe('an abort during the copy (real Temporal, real Docker, real files)', () => {
  it(
    'undoes only once the copy has stopped: nothing is written into B after remove-copy removed it',
    { timeout: 600_000 },
    async () => {
      await using world = await runbookWorld();
      const forge = await seedForge(world);
      await addBulkData(forge.hostFrom, BULK_MIB, SMALL_FILES);
      const handle = await world.start(dataPathMove, moveInput(forge));
      const deadline = Date.now() + WAIT_MS;
      while ((await bytesOnDisk(join(forge.hostTo, 'bulk', 'packs'))) < ABORT_AFTER) {
        assert.ok(Date.now() < deadline, 'the copy never got going');
        await delay(50);
      }
      await handle.cancel();
      const { status } = await closedFailing(handle);
      assert.equal(status.phase, 'aborted', status.outcome);
      assert.equal(status.steps.find((s) => s.name === 'remove-copy')?.state, 'compensated');
      assert.equal(await exists(forge.hostTo), false, 'B removed');
      // Whatever was still in flight would land now: B stays absent.
      for (let i = 0; i < 30; i++) {
        await delay(100);
        assert.equal(
          await exists(forge.hostTo),
          false,
          `B came back ${(i + 1) * 100} ms after the runbook ended`,
        );
      }

      // In the history: the copy's end (its cancellation confirmed) comes before the first undo activity.
      const events = (await handle.fetchHistory()).events ?? [];
      const typeOf = (scheduledId: unknown) =>
        events.find((e) => String(e.eventId) === String(scheduledId))?.activityTaskScheduledEventAttributes
          ?.activityType?.name;
      const cancelAsked = events.findIndex((e) => e.activityTaskCancelRequestedEventAttributes);
      assert.ok(cancelAsked > 0, 'the copy was asked to cancel');
      const copyEnded = events.findIndex((e) => {
        const ended =
          e.activityTaskCanceledEventAttributes ??
          e.activityTaskCompletedEventAttributes ??
          e.activityTaskFailedEventAttributes ??
          e.activityTaskTimedOutEventAttributes;
        return ended !== undefined && ended !== null && typeOf(ended.scheduledEventId) === 'copyTree';
      });
      const undoStarted = events.findIndex(
        (e, i) =>
          i > cancelAsked &&
          e.activityTaskScheduledEventAttributes !== undefined &&
          e.activityTaskScheduledEventAttributes !== null,
      );
      assert.ok(copyEnded > 0, 'the copy’s end is recorded');
      assert.ok(
        copyEnded < undoStarted,
        `the copy ended (event ${events[copyEnded]?.eventId}) before the undo began (event ${events[undoStarted]?.eventId}, ${events[undoStarted]?.activityTaskScheduledEventAttributes?.activityType?.name})`,
      );
      assert.ok(events[copyEnded]?.activityTaskCanceledEventAttributes, 'the copy ended cancelled, not done');
    },
  );
});
