import type { DockerEngine } from '../../docker/engine';
import { currentActivity, nextEvent } from './activity-context';
import { watchContainerEvents, type ContainerEvent, type EventFilters } from './container-events';

export type WatchOutcome =
  | { changed: false }
  | {
      changed: true;
      /** What differs from what the waiting gate judged, as it looks now. */
      look: string;
      /** The last Docker event before the look, when one woke the watch (not a reconnect or a timer). */
      event?: ContainerEvent;
      /** When the worker saw the change. */
      seenAt: string;
    };

/** Looks again at least this often: events are lossy, and a stream that ended is subscribed again. */
const QUIET_MS = 5_000;

/**
 * Looks (`changeNow`) at once, at every Docker event matching `filters`, at least every 5 s, and after the
 * event stream ends (a daemon restart: it subscribes again), until a look finds a change or `forMs` passed.
 * Heartbeats with `watching`; cancelled with the activity.
 */
export async function watchUntilChanged(
  engine: DockerEngine,
  filters: EventFilters,
  changeNow: () => Promise<string | undefined>,
  forMs: number,
  watching: string,
): Promise<WatchOutcome> {
  const until = Date.now() + forMs;
  let lastEvent: ContainerEvent | undefined;
  let wake: () => void = () => undefined;
  const subscribe = () =>
    watchContainerEvents(engine, filters, (event) => {
      if (event) lastEvent = event;
      wake();
    });
  let events = await subscribe();
  try {
    for (;;) {
      const look = await changeNow();
      if (look !== undefined)
        return {
          changed: true,
          look,
          ...(lastEvent ? { event: lastEvent } : {}),
          seenAt: new Date().toISOString(),
        };
      const left = until - Date.now();
      if (left <= 0) return { changed: false };
      currentActivity()?.heartbeat({ watching });
      if (events.ended()) {
        await nextEvent(Math.min(left, QUIET_MS), () => undefined);
        events.close();
        events = await subscribe();
        continue;
      }
      await nextEvent(Math.min(left, QUIET_MS), (resolve) => (wake = resolve));
    }
  } finally {
    events.close();
  }
}
