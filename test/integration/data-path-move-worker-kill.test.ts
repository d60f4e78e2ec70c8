import assert from 'node:assert/strict';
import { workerProcessOf } from '../support/temporal';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { defaultPayloadConverter } from '@temporalio/common';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import type { CatchUpResult, CopyProgress, CopyResult } from '../../activities/data';
import { dataPathMove } from '../../workflows';
import type { RunbookStatus } from '../../workflows/contracts';
import {
  activityResults,
  addBulkData,
  digestDifferences,
  exists,
  moveInput,
  scheduledActivities,
  seedForge,
  treeDigest,
} from '../support/data-move';
import { runbookWorld } from '../support/runbook-world';
import { decide, statusWhen, waitingAt } from '../support/runbooks';

/**
 * A worker SIGKILLed in the middle of a large copy: the copy activity times out on its heartbeat (30 s,
 * workflows/runbook/activities.ts), is retried on a new worker process, resumes from what is complete in
 * B instead of starting over, and the move ends with B verified identical to A.
 */

const { PendingActivityState, TimeoutType } = temporal.api.enums.v1;
/** Bulk data the copy needs several seconds for on these machines (~9 s for 580 MB, mostly small files). */
const BULK_MIB = 480;
const WAIT_MS = 180_000;
/**
 * The copy writes the 8 MiB packs first (they sort first), 16 at a time, then thousands of small files:
 * killed once this much of the packs is in B, some packs are complete and all small files are still to do.
 */
const KILL_AFTER = 160 * 2 ** 20;

/** Bytes of regular files below `root` now (each path counted; there are no hard links in this data). */
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

describe('data-path-move resumes a copy after its worker is SIGKILLed', () => {
  it(
    'killed mid-copy: the retry on a new worker resumes (copies less than the total) and B verifies',
    { timeout: 600_000 },
    async (t) => {
      await using world = await runbookWorld({ worker: 'none' });
      const forge = await seedForge(world);
      const bulk = await addBulkData(forge.hostFrom, BULK_MIB);
      const original = await treeDigest(forge.hostFrom);
      const first = await world.spawnWorker();
      const handle = await world.start(dataPathMove, moveInput(forge));

      // Wait until the first worker runs the copy, the server holds its progress heartbeat, and B has
      // a good part of the data but not all of it.
      const deadline = Date.now() + WAIT_MS;
      let serverProgress: CopyProgress | undefined;
      for (;;) {
        const { raw } = await handle.describe();
        const copying = raw.pendingActivities?.find(
          (a) =>
            a.activityType?.name === 'copyTree' &&
            a.state === PendingActivityState.PENDING_ACTIVITY_STATE_STARTED,
        );
        const payload = copying?.heartbeatDetails?.payloads?.[0];
        if (copying && payload) {
          assert.equal(workerProcessOf(copying.lastWorkerIdentity), first.identity);
          serverProgress = defaultPayloadConverter.fromPayload<CopyProgress>(payload as never);
          if ((await bytesOnDisk(join(forge.hostTo, 'bulk', 'packs'))) >= KILL_AFTER) break;
        }
        assert.ok(Date.now() < deadline, 'the copy never got going');
        await delay(50);
      }
      const copiedAtKill = await bytesOnDisk(forge.hostTo);
      await first.kill();
      const killedAt = Date.now();
      assert.ok(serverProgress, "the server held the copy's heartbeat details");
      t.diagnostic(
        `killed with ${(copiedAtKill / 2 ** 20).toFixed(0)} MiB in B; the server's last heartbeat details then: ${JSON.stringify(serverProgress)}`,
      );
      await world.spawnWorker();

      await statusWhen(handle, waitingAt('gate-apply'), WAIT_MS);
      await decide(handle, 'recreate', 'gate-apply');
      await statusWhen(handle, waitingAt('approve-remove-old-data'), WAIT_MS);
      await decide(handle, 'keep', 'approve-remove-old-data');
      const done: RunbookStatus = await handle.result();
      assert.equal(done.phase, 'completed', done.outcome);

      // The first copy ran twice: attempt 2, after a heartbeat timeout, resumed and wrote less than all.
      const history = await handle.fetchHistory();
      const events = history.events ?? [];
      const copies = events.filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'copyTree',
      );
      assert.equal(copies.length, 1, 'the copy, retried by the server, not rescheduled by the runbook');
      assert.equal(
        scheduledActivities(history).catchUpCopy,
        1,
        'recreate brings over only what changed on A',
      );
      const startedEvent = events.find(
        (e) => String(e.activityTaskStartedEventAttributes?.scheduledEventId) === String(copies[0]?.eventId),
      );
      const started = startedEvent?.activityTaskStartedEventAttributes;
      assert.equal(started?.attempt, 2);
      assert.equal(
        started?.lastFailure?.timeoutFailureInfo?.timeoutType,
        TimeoutType.TIMEOUT_TYPE_HEARTBEAT,
        JSON.stringify(started?.lastFailure),
      );
      const [result] = activityResults<CopyResult>(history, 'copyTree');
      const [catchUp] = activityResults<CatchUpResult>(history, 'catchUpCopy');
      assert.ok(result, 'the copy completed');
      assert.equal(result.resumed, true);
      assert.ok(result.bytes > bulk.bytes, 'the whole tree was copied');
      assert.ok(copiedAtKill < result.bytes, 'killed before the copy was complete');
      assert.ok(
        result.bytesCopiedThisAttempt < result.bytes,
        `resumed, not started over: ${result.bytesCopiedThisAttempt} of ${result.bytes} bytes`,
      );
      assert.ok(result.bytesCopiedThisAttempt > 0, 'the killed attempt left work to do');
      // The catch-up before recreating on B brings only what changed on A since the verified copy.
      assert.ok(catchUp, 'the catch-up copy completed');
      assert.deepEqual(catchUp.conflicts, []);
      const copyStep = done.steps.find((s) => s.name === 'copy');
      assert.equal(copyStep?.note, `${result.files} files, ${result.bytes} bytes (resumed)`);
      const retriedAt = optionalTsToMs(startedEvent?.eventTime) ?? Date.now();
      t.diagnostic(
        `attempt 2 started ${((retriedAt - killedAt) / 1000).toFixed(1)} s after the kill and wrote ${(result.bytesCopiedThisAttempt / 2 ** 20).toFixed(0)} of ${(result.bytes / 2 ** 20).toFixed(0)} MiB in ${result.seconds.toFixed(1)} s`,
      );

      // Verified by the runbook, and again here: every file of A, as it was, in B.
      assert.equal(done.steps.find((s) => s.name === 'verify-copy')?.state, 'done');
      assert.deepEqual(digestDifferences(original, await treeDigest(forge.hostTo)), []);
      assert.deepEqual(
        (await world.engine.inspect(forge.web))?.Mounts.map((m) => m.Source),
        [forge.hostTo],
      );
      assert.equal(await exists(forge.hostFrom), true, 'A kept');
    },
  );
});
