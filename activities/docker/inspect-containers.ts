import type Dockerode from 'dockerode';
import { z } from 'zod';
import { specHash } from '../../docker/container-options';
import type { DockerEngine } from '../../docker/engine';
import type { ContainerLabels } from '../../docker/container-labels';
import type { MeshPort } from '../../mesh/port';
import type { HostRootOf } from '../host-root';
import { Name, type ModuleSpec } from '../../mesh/schemas';
import { firstIssueText } from '../../base/zod-issue';
import { ContainerEvidence, type Mount } from '../../workflows/verdict/evidence';
import { parseActivityInput } from '../failures';
import { pauseWithHeartbeat } from './activity-context';
import { ambiguousContainers, unreadableInspection } from './failures';
import { findModuleContainers, type ModuleContainersAt } from './module-containers';
import { bindMountsOnNode } from './mount-paths';

export const InspectModuleInput = z.object({
  node: Name,
  module: Name,
  /** How long to wait between the two readings whose restart counts must agree. */
  stabilityWindowMs: z.number().int().min(0).max(600_000),
});
export type InspectModuleInput = z.infer<typeof InspectModuleInput>;

export interface Reading {
  id: string;
  name: string;
  info: Dockerode.ContainerInspectInfo;
}

/** One reading of the single container labelled as `module/container` on `node`; undefined when none is. */
export async function readContainer(
  at: ModuleContainersAt,
  node: string,
  module: string,
  container: string,
): Promise<Reading | undefined> {
  const matches = await findModuleContainers(at, node, module, container);
  const names = matches.map((m) => m.name);
  if (matches.length > 1) throw ambiguousContainers(node, module, container, names);
  const [match] = matches;
  if (!match) return undefined;
  const info = await at.engine.inspect(match.id);
  return info && { id: match.id, name: match.name, info };
}

/** Docker's `removing` is a container on its way out: as evidence it is dead. */
function stateName(status: string): string {
  return status === 'removing' ? 'dead' : status;
}

/** As Docker spells it; the evidence schema decides whether it reads (e.g. a state it does not know). */
type RawInspection =
  | { exists: false }
  | {
      exists: true;
      state: string;
      health: string;
      restartCount: number;
      restartCountStable: boolean;
      mounts: Mount[];
      id: string;
      startedAt: string;
      image: string;
      specHash?: string;
    };

/** The second reading, and whether the same container kept its restart count since the first. */
export function inspection(
  first: Reading | undefined,
  second: Reading | undefined,
  hostRoot: string,
  specHashLabel: string | undefined,
): RawInspection {
  if (!second) return { exists: false };
  const { info } = second;
  const sameContainer = first !== undefined && first.id === second.id;
  return {
    exists: true,
    state: stateName(info.State.Status),
    health: info.State.Health?.Status ?? 'none',
    restartCount: info.RestartCount,
    restartCountStable: sameContainer && first.info.RestartCount === info.RestartCount,
    mounts: bindMountsOnNode(hostRoot, info.Mounts),
    id: second.id,
    startedAt: info.State.StartedAt,
    image: info.Config.Image,
    ...(specHashLabel && info.Config.Labels?.[specHashLabel]
      ? { specHash: info.Config.Labels[specHashLabel] }
      : {}),
  };
}

/**
 * Reads every container of the module's spec straight from the node's Docker engine (docs/design.md §4: the
 * node's own report is not trusted alone), twice, `stabilityWindowMs` apart. Throws (non-retryable) when
 * two containers carry the same module container's labels: picking one could hide the other.
 */
export async function inspectModuleContainers(
  deps: { mesh: MeshPort; dockerFor(node: string): DockerEngine; hostRootOf: HostRootOf },
  input: InspectModuleInput,
): Promise<ContainerEvidence[]> {
  const { node, module, stabilityWindowMs } = parseActivityInput(
    'inspectModuleContainers',
    InspectModuleInput,
    input,
  );
  const [spec, hostRoot] = await Promise.all([deps.mesh.moduleSpec(module), deps.hostRootOf(node)]);
  const at = { engine: deps.dockerFor(node), labels: deps.mesh.containerLabels };
  const readAll = () => Promise.all(spec.containers.map((c) => readContainer(at, node, module, c.name)));

  const first = await readAll();
  if (stabilityWindowMs > 0) {
    await pauseWithHeartbeat(stabilityWindowMs, { node, module, step: 'restart-count stability window' });
  }
  const second = await readAll();

  return containerEvidence({ node, module, spec, hostRoot, labels: at.labels }, first, second);
}

/** Each container of the spec with what two readings of it say; unreadable (non-retryable) if it does not parse. */
export function containerEvidence(
  at: { node: string; module: string; spec: ModuleSpec; hostRoot: string; labels: ContainerLabels },
  first: (Reading | undefined)[],
  second: (Reading | undefined)[],
): ContainerEvidence[] {
  const { node, module, spec } = at;
  const evidence = spec.containers.map((c, i) => ({
    module,
    container: c.name,
    name: second[i]?.name ?? first[i]?.name ?? `${module}/${c.name} on ${node}`,
    desiredMounts: c.mounts.map((m) => ({ source: m.hostPath, destination: m.containerPath })),
    desiredImage: c.image,
    desiredSpecHash: specHash(c),
    observed: inspection(first[i], second[i], at.hostRoot, at.labels.specHash),
  }));
  const checked = z.array(ContainerEvidence).safeParse(evidence);
  if (!checked.success) throw unreadableInspection(node, module, firstIssueText(checked.error));
  return checked.data;
}
