import { z } from 'zod';
import type { DockerEngine } from '../../docker/engine';
import { moduleLabelFilter } from '../../mesh/container-labels';
import type { MeshPort } from '../../mesh/port';
import { Name } from '../../mesh/schemas';
import { containerLook, firstChange } from '../../workflows/verdict/container-look';
import type { HostRootOf } from '../host-root';
import { parseActivityInput } from '../failures';
import { currentActivity, nextEvent } from './activity-context';
import { watchModuleEvents, type ContainerEvent } from './container-events';
import { containerEvidence, readContainer } from './inspect-containers';

export const WatchModuleInput = z.strictObject({
  node: Name,
  module: Name,
  /** What the waiting gate's verdict rests on: each container's look (`containerLook`) when last judged. */
  judged: z.array(z.string().min(1).max(1_000)).max(200),
  /** How long to watch before answering unchanged (the runbook then watches again). */
  forMs: z.number().int().min(1).max(86_400_000),
});
export type WatchModuleInput = z.infer<typeof WatchModuleInput>;

export type WatchOutcome =
  | { changed: false }
  | {
      changed: true;
      /** The first container whose look differs from the judged one, as it looks now. */
      look: string;
      /** The last Docker event before the look, when one woke the watch (not a reconnect or a timer). */
      event?: ContainerEvent;
      /** When the worker saw the change. */
      seenAt: string;
    };

/** Looks again at least this often: events are lossy, and a stream that ended is subscribed again. */
const QUIET_MS = 5_000;

/**
 * Watches the module's containers on the node while a gate waits: Docker events (die, restart, health
 * changes, destroy) wake it, every wake reads the containers again, and it answers as soon as one of them
 * no longer looks as the gate judged it. Re-inspects and subscribes again when the event stream ends (a
 * daemon restart). Unchanged after `forMs`, it answers so. Cancelled when the gate is decided.
 */
export async function watchModuleContainers(
  deps: { mesh: MeshPort; dockerFor(node: string): DockerEngine; hostRootOf: HostRootOf },
  input: WatchModuleInput,
): Promise<WatchOutcome> {
  const { node, module, judged, forMs } = parseActivityInput(
    'watchModuleContainers',
    WatchModuleInput,
    input,
  );
  const [spec, hostRoot] = await Promise.all([deps.mesh.moduleSpec(module), deps.hostRootOf(node)]);
  const labels = deps.mesh.containerLabels;
  const engine = deps.dockerFor(node);
  const looks = async () => {
    const now = await Promise.all(
      spec.containers.map((c) => readContainer({ engine, labels }, node, module, c.name)),
    );
    return containerEvidence({ node, module, spec, hostRoot, labels }, now, now).map(containerLook);
  };
  const until = Date.now() + forMs;
  let lastEvent: ContainerEvent | undefined;
  let wake: () => void = () => undefined;
  const subscribe = () =>
    watchModuleEvents(engine, moduleLabelFilter(labels, { node, module }), (event) => {
      if (event) lastEvent = event;
      wake();
    });
  let events = await subscribe();
  try {
    for (;;) {
      const look = firstChange(judged, await looks());
      if (look !== undefined)
        return {
          changed: true,
          look,
          ...(lastEvent ? { event: lastEvent } : {}),
          seenAt: new Date().toISOString(),
        };
      const left = until - Date.now();
      if (left <= 0) return { changed: false };
      currentActivity()?.heartbeat({ watching: `${module} on ${node}` });
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
