import { z } from 'zod';
import type { DockerEngine } from '../../docker/engine';
import { moduleLabelFilter } from '../../docker/container-labels';
import type { MeshPort } from '../../mesh/port';
import { Name } from '../../mesh/schemas';
import { containerLook, firstChange } from '../../workflows/verdict/container-look';
import type { HostRootOf } from '../host-root';
import { parseActivityInput } from '../failures';
import { labelFilter } from './container-events';
import { watchUntilChanged, type WatchOutcome } from './watch-loop';
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
  const changeNow = async () => firstChange(judged, await looks());
  const filters = { label: labelFilter(moduleLabelFilter(labels, { node, module })) };
  return watchUntilChanged(engine, filters, changeNow, forMs, `${module} on ${node}`);
}

export type { WatchOutcome };
