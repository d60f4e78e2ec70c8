import { setTimeout as delay } from 'node:timers/promises';
import { Context } from '@temporalio/activity';

/** The running activity's context, or undefined when called directly (tests, scripts). */
export function currentActivity(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/**
 * Waits `ms`, heartbeating first. Inside an activity the wait ends early with a CancelledFailure when
 * the activity is cancelled (the runbook aborted); called directly it is a plain timer.
 */
export async function pauseWithHeartbeat(ms: number, details: unknown): Promise<void> {
  const activity = currentActivity();
  if (!activity) return void (await delay(ms));
  activity.heartbeat(details);
  await activity.sleep(ms);
}

/** Resolves on the next event or after `ms`; cancellation of the activity ends it with a CancelledFailure. */
export async function nextEvent(ms: number, arm: (resolve: () => void) => void): Promise<void> {
  const context = currentActivity();
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, Math.max(0, ms));
    arm(() => {
      clearTimeout(timer);
      resolve();
    });
    context?.cancelled.catch((error: unknown) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
