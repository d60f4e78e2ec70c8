import type { ContainerEvidence } from './evidence';

/**
 * What a gate's verdict rests on for one container, in one line: which container (its id), its state,
 * health and restart count. Two looks that differ mean the verdict may differ: a crash, a restart, a health
 * change, a new or missing container. Mounts and spec are left out: only a push changes them.
 */
export function containerLook(c: ContainerEvidence): string {
  const o = c.observed;
  if (!o.exists) return `${c.name}: missing`;
  const id = o.id ? ` (${o.id.slice(0, 12)})` : '';
  return `${c.name}${id}: ${o.state}, health ${o.health}, restarted ${o.restartCount}`;
}

/** The first look of `now` that `before` does not have, or undefined when every look is the same. */
export function firstChange(before: readonly string[], now: readonly string[]): string | undefined {
  const seen = new Set(before);
  const changed = now.find((look) => !seen.has(look));
  if (changed !== undefined) return changed;
  return before.length === now.length ? undefined : `${before.length} container(s) before, ${now.length} now`;
}
