import { z } from 'zod';
import type { DockerEngine } from '../../docker/engine';
import { moduleLabelFilter } from '../../docker/container-labels';
import type { MeshPort } from '../../mesh/port';
import type { HostRootOf } from '../host-root';
import { Name } from '../../mesh/schemas';
import type { ContainerEvidence } from '../../workflows/verdict/evidence';
import { parseActivityInput } from '../failures';
import { currentActivity, nextEvent } from './activity-context';
import { watchModuleEvents } from './container-events';
import { containerEvidence, readContainer, type Reading } from './inspect-containers';

export const ObserveModuleInput = z.strictObject({
  node: Name,
  module: Name,
  /** A running container counts as stable once up this long, from its own StartedAt, with no restart meanwhile. */
  stabilityWindowMs: z.number().int().min(0).max(600_000),
  /** How long a health check still `starting` may be waited for; 0 judges health as it is now. */
  healthDeadlineMs: z.number().int().min(0).max(86_400_000),
  /**
   * Whether waiting could change the verdict. A hold, drift or unreadable report does not depend on the
   * containers' health: one look, no waiting.
   */
  waitForStability: z.boolean(),
});
export type ObserveModuleInput = z.infer<typeof ObserveModuleInput>;

const MAX_QUIET_MS = 5_000;

/**
 * Inspects every container of the module's spec on the node's engine and, when it may matter, waits for the
 * verdict to settle on events rather than on a clock: until each running container has been up for the
 * stability window since its own StartedAt (an older one is stable at once), and until no health check is
 * still `starting` (or the health deadline passes). A crash, restart or health change during the wait is
 * seen when Docker reports it, and a final problem (missing, exited, unhealthy, wrong mounts) ends the wait.
 */
export async function observeModuleContainers(
  deps: { mesh: MeshPort; dockerFor(node: string): DockerEngine; hostRootOf: HostRootOf },
  input: ObserveModuleInput,
): Promise<ContainerEvidence[]> {
  const { node, module, stabilityWindowMs, healthDeadlineMs, waitForStability } = parseActivityInput(
    'observeModuleContainers',
    ObserveModuleInput,
    input,
  );
  const [spec, hostRoot] = await Promise.all([deps.mesh.moduleSpec(module), deps.hostRootOf(node)]);
  const labels = deps.mesh.containerLabels;
  const at = { node, module, spec, hostRoot, labels };
  const engine = deps.dockerFor(node);
  const readAll = () =>
    Promise.all(spec.containers.map((c) => readContainer({ engine, labels }, node, module, c.name)));
  const started = Date.now();
  const deadline = started + healthDeadlineMs;

  let wake: () => void = () => undefined;
  const events = waitForStability
    ? await watchModuleEvents(engine, moduleLabelFilter(labels, { node, module }), () => wake())
    : undefined;
  try {
    const first = await readAll();
    let now = first;
    for (;;) {
      const evidence = containerEvidence(at, first, now);
      const until = waitForStability ? settlesAt(evidence, now, stabilityWindowMs, deadline) : undefined;
      if (until === undefined) return evidence;
      heartbeat({ waiting: 'container stability and health', until: new Date(until).toISOString() });
      await nextEvent(Math.min(until - Date.now(), MAX_QUIET_MS), (resolve) => (wake = resolve));
      now = await readAll();
    }
  } finally {
    events?.close();
  }
}

/**
 * When the evidence could next change its verdict by itself: the earliest end of a young container's
 * window, or the health deadline while a check is still starting. Undefined: it is settled now (stable, or
 * something is wrong that waiting will not mend).
 */
function settlesAt(
  evidence: ContainerEvidence[],
  readings: (Reading | undefined)[],
  windowMs: number,
  deadline: number,
): number | undefined {
  const now = Date.now();
  let until: number | undefined;
  const later = (t: number) => (until = until === undefined ? t : Math.min(until, t));
  for (const [i, c] of evidence.entries()) {
    const o = c.observed;
    if (!o.exists || o.state !== 'running' || o.health === 'unhealthy' || !o.restartCountStable)
      return undefined;
    if (o.health === 'starting' && now < deadline) later(deadline);
    const startedAt = Date.parse(readings[i]?.info.State.StartedAt ?? '');
    const stableAt = startedAt + windowMs;
    if (Number.isFinite(stableAt) && stableAt > now) later(stableAt);
  }
  return until;
}

function heartbeat(details: unknown): void {
  currentActivity()?.heartbeat(details);
}
