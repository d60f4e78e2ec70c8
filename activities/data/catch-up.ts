import { join } from 'node:path';
import { applyPlan, type ApplyOptions, type Sides } from './catch-up-apply';
import { planCatchUp } from './catch-up-plan';
import { sha256File } from './hash';
import { scanManifest } from './manifest';

export interface CatchUpResult {
  copied: string[];
  removed: string[];
  conflicts: string[];
  kept: string[];
}

export interface CatchUpOptions extends ApplyOptions {
  /** With conflicts: false changes nothing; true applies the rest and keeps B's version of each. */
  keepNewOnConflict: boolean;
}

/** Both sides hold the same now: type, owner, mode, link target and (for files) content; times aside. */
async function identicalOnBothSides(hostA: string, hostB: string, rel: string, now: Sides) {
  const [a, b] = [now.a[rel], now.b[rel]];
  if (a === undefined || b === undefined) return a === b;
  if (a.type !== b.type || a.uid !== b.uid || a.gid !== b.gid || a.target !== b.target) return false;
  if (a.type !== 'symlink' && a.mode !== b.mode) return false;
  if (a.type !== 'file') return true;
  return a.size === b.size && (await sha256File(join(hostA, rel))) === (await sha256File(join(hostB, rel)));
}

/**
 * Brings to B what changed on A since the baseline, never what B changed (see planCatchUp). With
 * conflicts and `keepNewOnConflict: false` nothing changes and `next` is undefined; otherwise `next` is
 * the baseline to record.
 */
export async function catchUp(
  hostA: string,
  hostB: string,
  base: Sides,
  options: CatchUpOptions,
): Promise<CatchUpResult & { next?: Sides }> {
  const [a, b] = await Promise.all([
    scanManifest(hostA, { signal: options.signal, onEntry: options.onScanned }),
    scanManifest(hostB, { signal: options.signal, onEntry: options.onScanned }),
  ]);
  const now = { a, b };
  const plan = await planCatchUp({ base, now }, (rel) => {
    options.signal?.throwIfAborted();
    return identicalOnBothSides(hostA, hostB, rel, now);
  });
  const shown = (paths: string[]) => paths.map((rel) => rel || '.');
  if (plan.conflicts.length > 0 && !options.keepNewOnConflict)
    return { copied: [], removed: [], conflicts: shown(plan.conflicts), kept: [] };
  const next = await applyPlan(hostA, hostB, plan, now, options);
  return {
    copied: shown(plan.bring),
    removed: shown(plan.remove),
    conflicts: shown(plan.conflicts),
    kept: shown(plan.conflicts),
    next,
  };
}
