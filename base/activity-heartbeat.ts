// The Temporal activity context when there is one: mesh adapters and activities both heartbeat through it.
import { Context } from '@temporalio/activity';

/** Heartbeats when running as an activity; a no-op when the function is called directly (tests, CLI). */
export function heartbeat(details?: unknown): void {
  let context: Context;
  try {
    context = Context.current();
  } catch {
    return;
  }
  context.heartbeat(details);
}

/** The activity's cancellation signal, if there is one. */
export function activitySignal(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined;
  }
}

/**
 * Heartbeats now and every `everyMs` until `work` settles: a slow answer on a live worker is never timed
 * out, while the server notices a dead worker within the heartbeat timeout instead of the whole deadline.
 */
export async function heartbeatWhile<T>(work: Promise<T>, everyMs = 2_000): Promise<T> {
  heartbeat();
  const timer = setInterval(() => heartbeat(), everyMs);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}
