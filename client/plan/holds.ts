import { containerHoldReason, dirHoldReason, heldDirMountedBy, isDirHeld } from '../../mesh/local/holds';
import { containerResourceId, dirResourceId, type ModuleSpec, type NodeState } from '../../mesh/schemas';
import type { PredictedHold } from '../../workflows/plan-report';

/**
 * What the node will hold at the runbook's push, by mesh's own rule (an adopted node holds data it finds
 * on disk for a module not taken, and every container mounting it): `modules` are the specs the push
 * sends, `exists` says whether a data dir is on the node's disk by then. A dir mesh applied at the node's
 * last apply is its own and never held; the holds the node reported then stand too.
 */
export function predictHolds(
  state: NodeState,
  modules: ModuleSpec[],
  exists: (path: string) => boolean,
): PredictedHold[] {
  const applied = new Set(state.lastApply?.appliedIds ?? []);
  const holds: PredictedHold[] = [];
  for (const spec of modules) {
    const heldDirs = spec.dataDirs.filter((dir) =>
      isDirHeld({
        adopted: state.adopted,
        taken: state.taken.includes(spec.module),
        existsOnDisk: exists(dir),
        owned: applied.has(dirResourceId(spec.module, dir)),
      }),
    );
    const hold = (resource: string, reason: string) =>
      holds.push({ node: state.node, resource, module: spec.module, reason });
    for (const dir of heldDirs) hold(dirResourceId(spec.module, dir), dirHoldReason(spec.module, dir));
    for (const container of spec.containers) {
      const dir = heldDirMountedBy(container, heldDirs);
      if (dir !== undefined)
        hold(containerResourceId(spec.module, container.name), containerHoldReason(spec.module, dir));
    }
  }
  const sent = new Set(modules.map((m) => m.module));
  const predicted = new Set(holds.map((h) => h.resource));
  for (const held of state.holds)
    if (sent.has(held.module) && !state.taken.includes(held.module) && !predicted.has(held.resource))
      holds.push({ node: state.node, ...held });
  return holds;
}

/** `/var/lib/route-proxy/{www,ca,dns}`: paths with one parent written once; others listed as they are. */
export function bracePaths(paths: string[]): string {
  const parents = new Set(paths.map((p) => p.slice(0, p.lastIndexOf('/'))));
  const [parent] = parents;
  if (paths.length < 2 || parents.size !== 1 || parent === undefined) return paths.join(', ');
  return `${parent}/{${paths.map((p) => p.slice(parent.length + 1)).join(',')}}`;
}

/** The host path of a dir resource id (`route-proxy/dir:/var/lib/route-proxy/www`), else undefined. */
export function dirOf(resource: string): string | undefined {
  const at = resource.indexOf('/dir:');
  return at < 0 ? undefined : resource.slice(at + '/dir:'.length);
}
