import type { Context } from '@temporalio/activity';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { STALLED_AFTER_MS, StallWatch } from './stall-watch';

/** Beats per heartbeat timeout, and the longest gap between two beats. */
const BEATS_PER_TIMEOUT = 4;
const MAX_GAP_MS = 2_000;

export interface KeepAliveOptions {
  /** The worker's `policy.stalledAfter`: progress standing still this long is reported as stalled. */
  stalledAfterMs?: number;
}

/**
 * While an activity with a heartbeat timeout runs, heartbeats on its behalf a few times per timeout: the
 * server then notices a dead worker within that timeout, while a live worker's slow Docker or mesh call is
 * never timed out for not beating. Each beat repeats the details the activity last gave (its previous
 * attempt's until it gives its own), so a copy's progress is never replaced by an empty beat. Because these
 * beats keep a stuck copy alive too, the progress the activity reports is watched, and its runbook is told
 * when it stands still for `stalledAfterMs` (see StallWatch).
 */
export function keepAlive(options: KeepAliveOptions = {}): ActivityInterceptorsFactory {
  const stalledAfterMs = options.stalledAfterMs ?? STALLED_AFTER_MS;
  return (ctx) => ({
    inbound: {
      execute: async (input, next) => {
        const timeoutMs = ctx.info.heartbeatTimeoutMs;
        if (!timeoutMs) return next(input);
        const watch = new StallWatch(ctx, stalledAfterMs, ctx.info.heartbeatDetails);
        const lastDetails = rememberDetails(ctx, (details) => watch.sent(details));
        const beat = setInterval(
          () => {
            ctx.heartbeat(lastDetails());
            watch.check();
          },
          Math.min(MAX_GAP_MS, timeoutMs / BEATS_PER_TIMEOUT),
        );
        try {
          return await next(input);
        } finally {
          clearInterval(beat);
          await watch.end();
        }
      },
    },
  });
}

/**
 * Wraps the context's heartbeat (an own property of each activity's context) so the details of every beat
 * the activity sends are remembered and handed to `onBeat`; returns what was last sent.
 */
function rememberDetails(ctx: Context, onBeat: (details: unknown) => void): () => unknown {
  let details: unknown = ctx.info.heartbeatDetails;
  const send = ctx.heartbeat.bind(ctx);
  Object.defineProperty(ctx, 'heartbeat', {
    value: (next?: unknown) => {
      details = next;
      send(next);
      onBeat(next);
    },
    writable: true,
    configurable: true,
  });
  return () => details;
}
