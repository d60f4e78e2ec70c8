import type { Readable } from 'node:stream';
import type { DockerEngine } from '../../docker/engine';

/** The container events that can change a gate's verdict: a crash, a restart, a health change, a removal. */
const ACTIONS = ['start', 'die', 'restart', 'stop', 'destroy', 'health_status', 'oom'];

/** One event as Docker reported it: `die` of `novox.route-proxy.edge` at its own time. */
export interface ContainerEvent {
  action: string;
  name: string;
  /** Docker's time of the event (ISO, to the millisecond). */
  at: string;
}

/** The events in a chunk of Docker's JSON-lines stream; a line that does not parse is left out. */
function eventsIn(chunk: unknown): ContainerEvent[] {
  return String(chunk)
    .split('\n')
    .flatMap((line) => {
      try {
        const e = JSON.parse(line) as {
          Action?: string;
          Actor?: { Attributes?: { name?: string } };
          timeNano?: number;
          time?: number;
        };
        const ms = e.timeNano ? Math.floor(e.timeNano / 1e6) : (e.time ?? 0) * 1000;
        return [
          { action: e.Action ?? '?', name: e.Actor?.Attributes?.name ?? '?', at: new Date(ms).toISOString() },
        ];
      } catch {
        return [];
      }
    });
}

/** Which container events to watch: by label (`key=value`), and which actions (else ACTIONS). */
export interface EventFilters {
  label?: string[];
  event?: string[];
}

/** A label map as Docker's event filter spells it. */
export function labelFilter(labels: Record<string, string>): string[] {
  return Object.entries(labels).map(([key, value]) => `${key}=${value}`);
}

/** Wakes `onEvent` for each lifecycle event of the module's containers on the engine; see watchContainerEvents. */
export function watchModuleEvents(
  engine: DockerEngine,
  /** The module's labels as its mesh writes them (docker/container-labels `moduleLabelFilter`). */
  labels: Record<string, string>,
  onEvent: (event?: ContainerEvent) => void,
): Promise<{ close(): void; ended(): boolean }> {
  return watchContainerEvents(engine, { label: labelFilter(labels) }, onEvent);
}

/**
 * Wakes `onEvent` for each container event on the engine that `filters` selects. The stream is lossy
 * and ends when the daemon restarts: callers re-inspect when it ends and at the end of every wait, and
 * `ended` says the stream is gone (a later call subscribes again; `onEvent` then gets no event).
 */
export async function watchContainerEvents(
  engine: DockerEngine,
  filters: EventFilters,
  onEvent: (event?: ContainerEvent) => void,
): Promise<{ close(): void; ended(): boolean }> {
  let gone = false;
  let stream: Readable | undefined;
  try {
    stream = (await engine.docker.getEvents({
      filters: JSON.stringify({
        type: ['container'],
        event: filters.event ?? ACTIONS,
        ...(filters.label ? { label: filters.label } : {}),
      }),
    })) as Readable;
  } catch {
    gone = true;
  }
  stream?.on('data', (chunk: unknown) => {
    const events = eventsIn(chunk);
    if (events.length === 0) onEvent();
    for (const event of events) onEvent(event);
  });
  const end = () => {
    gone = true;
    onEvent();
  };
  stream?.on('end', end);
  stream?.on('error', end);
  return {
    close: () => stream?.destroy(),
    ended: () => gone,
  };
}
