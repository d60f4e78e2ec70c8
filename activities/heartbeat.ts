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
