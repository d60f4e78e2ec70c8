import { unchanged, type Manifest } from './manifest';
import { PreflightError } from './preflight';

/** A and B at the baseline and now. */
export interface CatchUpSides {
  base: { a: Manifest; b: Manifest };
  now: { a: Manifest; b: Manifest };
}

/** What a catch-up does to B, parents before children. */
export interface CatchUpPlan {
  /** Paths whose version on A now is put on B (created, replaced, or given A's owner and mode). */
  bring: string[];
  /** Paths removed from B because A removed them; a directory goes with everything below it. */
  remove: string[];
  /** Paths changed on both sides since the baseline, and not identical now: B's version is left. */
  conflicts: string[];
}

/** Parents before children, siblings by name: the order a tree is written in. */
export function treeOrder(x: string, y: string): number {
  const [xs, ys] = [x.split('/'), y.split('/')];
  for (let i = 0; i < Math.min(xs.length, ys.length); i++) {
    const [p, q] = [xs[i] as string, ys[i] as string];
    if (p !== q) return p < q ? -1 : 1;
  }
  return xs.length - ys.length;
}

export function isBelow(path: string, dir: string): boolean {
  return dir === '' ? path !== '' : path.startsWith(`${dir}/`);
}

export function parentOf(rel: string): string {
  const slash = rel.lastIndexOf('/');
  return slash < 0 ? '' : rel.slice(0, slash);
}

/** The paths created, changed or removed between two manifests of one tree. */
export function changedPaths(base: Manifest, now: Manifest): Set<string> {
  const paths = new Set([...Object.keys(base), ...Object.keys(now)]);
  return new Set([...paths].filter((rel) => !unchanged(base[rel], now[rel])));
}

/**
 * What a catch-up may do once B is the truth. A change on A (a path created, changed or removed since
 * the baseline) is brought to B only where B has not changed since; a path changed on both sides is a
 * conflict unless both now hold the same (`identicalNow`). A change on B alone is never touched. A change
 * on A that would remove a directory of B in which anything changed, or that needs a parent B removed,
 * is a conflict too: it would destroy or resurrect what B decided.
 */
export async function planCatchUp(
  { base, now }: CatchUpSides,
  identicalNow: (rel: string) => Promise<boolean>,
): Promise<CatchUpPlan> {
  const changedOnB = changedPaths(base.b, now.b);
  const plan: CatchUpPlan = { bring: [], remove: [], conflicts: [] };
  const bring = new Set<string>();
  /** B directories removed or replaced whole: what lies below them is accounted for. */
  const cleared: string[] = [];
  const isCleared = (rel: string) => cleared.some((dir) => rel === dir || isBelow(rel, dir));
  const isDirectoryAfter = (rel: string): boolean => {
    if (rel === '') return true;
    if (isCleared(rel)) return bring.has(rel) && now.a[rel]?.type === 'dir';
    if (bring.has(rel)) return now.a[rel]?.type === 'dir';
    return now.b[rel]?.type === 'dir' && isDirectoryAfter(parentOf(rel));
  };

  for (const rel of [...changedPaths(base.a, now.a)].sort(treeOrder)) {
    if (cleared.some((dir) => isBelow(rel, dir))) continue;
    const [a, b] = [now.a[rel], now.b[rel]];
    if (changedOnB.has(rel)) {
      if (!(await identicalNow(rel))) plan.conflicts.push(rel);
      continue;
    }
    if (a?.type === 'special')
      throw new PreflightError(
        `${rel} on the source path is now a socket, FIFO or device, which the copy does not move; remove it first.`,
      );
    if (a === undefined && b === undefined) continue;
    const replacesB = b !== undefined && (a === undefined || a.type !== 'dir' || b.type !== 'dir');
    const changedBelow = [...changedOnB].some((path) => isBelow(path, rel));
    if (replacesB && b.type === 'dir' && changedBelow) {
      plan.conflicts.push(rel);
      continue;
    }
    if (a !== undefined && !isDirectoryAfter(parentOf(rel))) {
      plan.conflicts.push(rel);
      continue;
    }
    if (replacesB && b.type === 'dir') cleared.push(rel);
    if (a === undefined) plan.remove.push(rel);
    else {
      plan.bring.push(rel);
      bring.add(rel);
    }
  }
  return plan;
}
