import { containerResourceId } from '../../mesh/schemas';
import type { HeldResource } from '../../mesh/schemas';
import type { ContainerEvidence, ContainerStateName, FirstSeen, Mount } from './evidence';
import type { ContainerFinding, MountMismatch } from './types';

const NOT_RUNNING: Record<Exclude<ContainerStateName, 'running'>, string> = {
  exited: 'has exited',
  created: 'was created but never started',
  restarting: 'is restarting',
  paused: 'is paused',
  dead: 'is dead',
};

export interface InspectOptions {
  healthDeadlinePassed: boolean;
  oldHostPaths: string[];
  firstSeen?: Record<string, FirstSeen> | undefined;
  /** Revision 2 compares the running spec digest and image with the current spec. */
  compareSpec: boolean;
}

/** What is wrong with one expected container, or undefined when it runs, is healthy and mounts the spec. */
export function inspectContainer(
  c: ContainerEvidence,
  options: InspectOptions,
): ContainerFinding | undefined {
  const base = { module: c.module, container: c.container, name: c.name };
  const o = c.observed;
  if (!o.exists)
    return {
      ...base,
      running: false,
      failures: ['is missing'],
      mounts: [],
      staleSpec: [],
      restartedSince: 0,
      starting: false,
    };

  const running = o.state === 'running';
  const failures: string[] = [];
  if (o.state !== 'running') failures.push(NOT_RUNNING[o.state]);
  if (!o.restartCountStable) failures.push(`keeps restarting (restart count ${o.restartCount} and rising)`);
  const seen = options.firstSeen?.[c.name];
  const restartedSince = seen && seen.id === o.id ? Math.max(0, o.restartCount - seen.restartCount) : 0;
  if (seen && restartedSince > 0) {
    const times = restartedSince;
    const since = seen.createdByRunbook
      ? `since the runbook's push created it`
      : `since the runbook first saw it at ${seen.at.slice(11, 19)} UTC`;
    failures.push(`restarted ${times} ${times === 1 ? 'time' : 'times'} ${since}`);
  }
  if (running && o.health === 'unhealthy') failures.push('is unhealthy');
  if (running && o.health === 'starting' && options.healthDeadlinePassed) {
    failures.push('is still starting past its health deadline');
  }
  const starting = running && o.health === 'starting' && !options.healthDeadlinePassed;
  const mounts = compareMounts(c.desiredMounts, o.mounts, options.oldHostPaths);
  const staleSpec = options.compareSpec ? compareSpec(c, o) : [];
  if (failures.length === 0 && mounts.length === 0 && staleSpec.length === 0 && !starting) return undefined;
  return { ...base, running, failures, mounts, staleSpec, restartedSince, starting };
}

/** How a running container differs from what the current spec asks for, by mesh's own label and its image. */
function compareSpec(
  c: ContainerEvidence,
  o: { image?: string | undefined; specHash?: string | undefined },
): string[] {
  const stale: string[] = [];
  if (o.specHash && c.desiredSpecHash && o.specHash !== c.desiredSpecHash)
    stale.push(`runs spec ${o.specHash} where the spec is now ${c.desiredSpecHash}`);
  if (o.image && c.desiredImage && o.image !== c.desiredImage)
    stale.push(`runs image ${o.image} where the spec asks for ${c.desiredImage}`);
  return stale;
}

/** Mounts that differ from the spec, matched by destination; extra and missing mounts count too. */
export function compareMounts(desired: Mount[], observed: Mount[], oldHostPaths: string[]): MountMismatch[] {
  const isOld = (source: string) => oldHostPaths.some((old) => isUnder(source, normalizePath(old)));
  const current = new Map(observed.map((m) => [normalizePath(m.destination), normalizePath(m.source)]));
  const wanted = new Map(desired.map((m) => [normalizePath(m.destination), normalizePath(m.source)]));
  const mismatches: MountMismatch[] = [];
  for (const [destination, want] of wanted) {
    const have = current.get(destination);
    if (have === undefined) mismatches.push({ destination, current: null, desired: want, oldPath: false });
    else if (have !== want)
      mismatches.push({ destination, current: have, desired: want, oldPath: isOld(have) });
  }
  for (const [destination, have] of current) {
    if (!wanted.has(destination))
      mismatches.push({ destination, current: have, desired: null, oldPath: isOld(have) });
  }
  return mismatches;
}

/**
 * Whether a hold keeps this container from running as specified: the node holds the container itself,
 * or a directory it would mount (the node then holds every container that mounts it).
 */
export function isHeldBack(c: ContainerEvidence, held: HeldResource[]): boolean {
  const own = containerResourceId(c.module, c.container);
  const sources = c.desiredMounts.map((m) => normalizePath(m.source));
  return held.some((h) => {
    if (h.resource === own) return true;
    const dir = /^[^/]+\/dir:(.+)$/.exec(h.resource)?.[1];
    if (dir === undefined) return false;
    const heldPath = normalizePath(dir);
    return sources.some((s) => isUnder(s, heldPath) || isUnder(heldPath, s));
  });
}

/** `//a/b/` → `/a/b`: Docker and specs may spell the same host path differently. */
export function normalizePath(path: string): string {
  const collapsed = path.replace(/\/+/g, '/');
  return collapsed.length > 1 ? collapsed.replace(/\/$/, '') : collapsed;
}

function isUnder(path: string, root: string): boolean {
  return path === root || path.startsWith(root === '/' ? '/' : `${root}/`);
}
