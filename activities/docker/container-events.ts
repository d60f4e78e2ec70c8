import type { Readable } from 'node:stream';
import type { DockerEngine } from '../../docker/engine';
import { LABEL } from '../../docker/labels';

/** The container events that can change a gate's verdict: a crash, a restart, a health change, a removal. */
const ACTIONS = ['start', 'die', 'restart', 'stop', 'destroy', 'health_status', 'oom'];

/**
 * Wakes `onEvent` for each lifecycle event of the module's containers on the engine. The stream is lossy
 * and ends when the daemon restarts: callers re-inspect when it ends and at the end of every wait, and
 * `ended` says the stream is gone (a later call subscribes again).
 */
export async function watchModuleEvents(
  engine: DockerEngine,
  labels: { node: string; module: string },
  onEvent: () => void,
): Promise<{ close(): void; ended(): boolean }> {
  let gone = false;
  let stream: Readable | undefined;
  try {
    stream = (await engine.docker.getEvents({
      filters: JSON.stringify({
        type: ['container'],
        event: ACTIONS,
        label: [`${LABEL.node}=${labels.node}`, `${LABEL.module}=${labels.module}`],
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
