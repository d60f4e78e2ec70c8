import type { DockerEngine } from '../../docker/engine';
import { currentActivity, nextEvent } from './activity-context';
import { watchContainerEvents, type ContainerEvent, type EventFilters } from './container-events';

export type WatchOutcome =
  | { changed: false }
  | {
      changed: true;
      /** What differs from what the waiting gate judged, as it looks now. */
      look: string;
      /** The last Docker event of a container the look names (not another container's, a reconnect or a timer). */
      event?: ContainerEvent;
      /** When the worker saw the change. */
      seenAt: string;
    };

/** Looks again at least this often: events are lossy, and a stream that ended is subscribed again. */
const QUIET_MS = 5_000;

/** The events kept for naming the one behind a change: enough for a burst of other containers' events. */
const EVENTS_KEPT = 100;

/**
 * The last event of a container that `look` names: the event behind the change. Not simply the last event:
 * one engine serves several nodes (and other containers), whose events can come between the change and
 * the look, and the sentence would name a container that has nothing to do with it.
 */
export function eventBehind(look: string, events: readonly ContainerEvent[]): ContainerEvent | undefined {
  // A container's name has no blank, parenthesis or colon; a look writes one as `NAME (id)` or `NAME:`.
  const named = new Set(look.split(/[\s():]+/));
  return [...events].reverse().find((e) => named.has(e.name));
}

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
  const seen: ContainerEvent[] = [];
  let wake: () => void = () => undefined;
  const subscribe = () =>
    watchContainerEvents(engine, filters, (event) => {
      if (event && seen.push(event) > EVENTS_KEPT) seen.shift();
      wake();
    });
  let events = await subscribe();
  try {
    for (;;) {
      const look = await changeNow();
      if (look !== undefined) {
        const event = eventBehind(look, seen);
        return { changed: true, look, ...(event ? { event } : {}), seenAt: new Date().toISOString() };
      }
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
