import type { Readable } from 'node:stream';
import type { DockerEngine } from '../../docker/engine';

/** The container events that can change a gate's verdict: a crash, a restart, a health change, a removal. */
const ACTIONS = ['start', 'die', 'restart', 'stop', 'destroy', 'health_status', 'oom'];

/**
 * Wakes `onEvent` for each lifecycle event of the module's containers on the engine. The stream is lossy
 * and ends when the daemon restarts: callers re-inspect when it ends and at the end of every wait, and
 * `ended` says the stream is gone (a later call subscribes again).
 */
export async function watchModuleEvents(
  engine: DockerEngine,
  /** The module's labels as its mesh writes them (mesh/container-labels `moduleLabelFilter`). */
  labels: Record<string, string>,
  onEvent: () => void,
): Promise<{ close(): void; ended(): boolean }> {
  let gone = false;
  let stream: Readable | undefined;
  try {
    stream = (await engine.docker.getEvents({
      filters: JSON.stringify({
        type: ['container'],
        event: ACTIONS,
        label: Object.entries(labels).map(([key, value]) => `${key}=${value}`),
      }),
    })) as Readable;
  } catch {
    gone = true;
  }
  stream?.on('data', onEvent);
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
