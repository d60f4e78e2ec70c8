import type { ApplyReport, NodeState, PushReceipt } from '../../mesh/schemas';

export interface Documents {
  receipt: PushReceipt;
  report: ApplyReport;
  nodeState: NodeState;
}

/** A resource id's module: ids are `<module>/dir:<path>` or `<module>/container:<name>`. */
export function moduleOf(resource: string): string {
  return resource.slice(0, resource.indexOf('/'));
}

/**
 * The documents as far as they are about `modules`, their counts made to match, and what they say of every
 * other module, one sentence each: a hold, a failure, a resource sent and not applied.
 */
export function onlyModules(
  { receipt, report, nodeState }: Documents,
  modules: string[],
): Documents & { elsewhere: string[] } {
  const own = (resource: string) => modules.includes(moduleOf(resource));
  const resourceIds = receipt.resourceIds.filter(own);
  const appliedIds = report.appliedIds.filter(own);
  const ownOf = <T extends { resource: string }>(items: T[]) => items.filter((i) => own(i.resource));
  const applied = new Set(report.appliedIds);
  const explained = new Set([...report.held, ...nodeState.holds, ...report.failed].map((r) => r.resource));
  const held = [...report.held, ...nodeState.holds].filter((h) => !own(h.resource));
  const elsewhere = [
    ...[...new Map(held.map((h) => [h.resource, h])).values()].map(
      (h) => `${h.resource} of ${h.module} held: ${h.reason}`,
    ),
    ...report.failed
      .filter((f) => !own(f.resource))
      .map((f) => `${f.resource} of ${f.module} failed: ${f.error}`),
    ...receipt.resourceIds
      .filter((id) => !own(id) && !applied.has(id) && !explained.has(id))
      .map((id) => `${id} of ${moduleOf(id)} sent and not applied`),
  ];
  return {
    receipt: { ...receipt, resourceIds, sent: resourceIds.length },
    report: {
      ...report,
      appliedIds,
      applied: appliedIds.length,
      held: ownOf(report.held),
      failed: ownOf(report.failed),
    },
    nodeState: { ...nodeState, holds: ownOf(nodeState.holds) },
    elsewhere,
  };
}
