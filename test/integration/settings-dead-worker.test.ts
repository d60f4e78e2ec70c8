import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import type { WorkflowHandle } from '@temporalio/client';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { runbookWorld } from '../support/runbook-world';
import { edgeFlip } from '../../workflows';

/**
 * Found by the chaos suite's two-workers experiment: a worker SIGKILLed while it read the node's last run
 * (or the policy) left the runbook standing for the reads' whole one-minute deadline, since they had no
 * heartbeat timeout. Stand-in for the dead worker: the read's first attempt never answers and its context
 * never beats again (neither the activity nor the worker's keep-alive), which is all the server sees of a
 * worker killed inside it. The real SIGKILL inside a read is the chaos suite's `kill at previousRun#1`.
 */

const ms = (time: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(time?.seconds ?? 0) * 1000 + Math.floor((time?.nanos ?? 0) / 1e6);

/** When previousRun was scheduled and when an attempt of it completed, from the history. */
async function previousRunTimes(handle: WorkflowHandle, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const events = (await handle.fetchHistory()).events ?? [];
    const scheduled = events.find(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'previousRun',
    );
    const completed = events.find(
      (e) =>
        scheduled &&
        String(e.activityTaskCompletedEventAttributes?.scheduledEventId ?? '') === String(scheduled.eventId),
    );
    const started = events.find(
      (e) =>
        scheduled &&
        String(e.activityTaskStartedEventAttributes?.scheduledEventId ?? '') === String(scheduled.eventId),
    );
    if (scheduled && completed)
      return {
        waitedMs: ms(completed.eventTime) - ms(scheduled.eventTime),
        attempt: started?.activityTaskStartedEventAttributes?.attempt,
      };
    await delay(500);
  }
  throw new Error(`previousRun did not complete within ${timeoutMs} ms`);
}

describe('a worker that dies inside a settings read (stand-in: the first attempt never answers)', () => {
  it('the runbook reads again within the heartbeat timeout, not after the one-minute deadline', async () => {
    await using world = await runbookWorld({
      wrap: (activities) => ({
        async previousRun(ref) {
          const context = Context.current();
          if (context.info.attempt === 1) {
            Object.defineProperty(context, 'heartbeat', { value: () => undefined });
            await new Promise((resolve) => {
              context.cancellationSignal.addEventListener('abort', resolve);
              setTimeout(resolve, 90_000).unref();
            });
          }
          return activities.previousRun(ref);
        },
      }),
    });
    const input = await seedEdgeFlip(world);
    const handle = await world.start(edgeFlip, input);
    const { waitedMs, attempt } = await previousRunTimes(handle, 100_000);
    assert.equal(attempt, 2, 'the first attempt hung; the second answered');
    // Its heartbeat timeout is seconds, its deadline a minute: anything short of the minute is the former.
    assert.ok(waitedMs < 50_000, `previousRun completed ${waitedMs} ms after it was scheduled`);
  });
});
