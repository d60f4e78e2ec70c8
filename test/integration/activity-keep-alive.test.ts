import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { edgeFlip } from '../../workflows';
import type { RunbookStatus } from '../../workflows/contracts';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { runbookWorld } from '../support/runbook-world';
import { decide, statusWhen, waitingAt } from '../support/runbooks';

/** Longer than the 10 s heartbeat timeout runbooks now schedule their steps with. */
const SLOW_MS = 13_000;

/**
 * A dead worker is noticed after 10 s without a heartbeat (it was 30 s). The other side of that bargain: a
 * live worker's step that takes longer than 10 s without beating itself (a slow `docker stop`) must not be
 * timed out and run twice. The worker beats for it (worker/keep-alive.ts).
 */
describe('a step slower than its heartbeat timeout on a live worker', () => {
  it('runs once and is not timed out: the worker beats for it', { timeout: 600_000 }, async () => {
    let stops = 0;
    await using world = await runbookWorld({
      wrap: (activities) => ({
        async stopModuleContainers(input) {
          stops += 1;
          await delay(SLOW_MS);
          return activities.stopModuleContainers(input);
        },
      }),
    });
    const handle = await world.start(edgeFlip, await seedEdgeFlip(world));
    await statusWhen(handle, waitingAt('approve-stop-predecessor'), 120_000);
    await decide(handle, 'approve', 'approve-stop-predecessor');
    const done: RunbookStatus = await handle.result();
    assert.equal(done.phase, 'completed', done.outcome);
    assert.equal(stops, 1, 'the slow stop ran once');

    const events = (await handle.fetchHistory()).events ?? [];
    const scheduled = events.find(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'stopModuleContainers',
    );
    const heartbeatTimeout = scheduled?.activityTaskScheduledEventAttributes?.heartbeatTimeout;
    assert.equal(optionalTsToMs(heartbeatTimeout), 10_000);
    const started = events.find(
      (e) =>
        String(e.activityTaskStartedEventAttributes?.scheduledEventId ?? '') === String(scheduled?.eventId),
    );
    assert.equal(started?.activityTaskStartedEventAttributes?.attempt, 1, 'no timeout, no retry');
  });
});
