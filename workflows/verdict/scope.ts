import { moduleOfResource, type ApplyReport, type NodeState, type PushReceipt } from '../../mesh/schemas';
import { account } from './resources';

export interface Documents {
  receipt: PushReceipt;
  report: ApplyReport;
  nodeState: NodeState;
}

/**
 * The documents as far as they are about `modules`, their counts made to match, and what the node's
 * accounting (`account`) says of every other module, one sentence each: a hold, a failure, a resource sent
 * and not applied, or applied and never sent.
 */
export function onlyModules(
  { receipt, report, nodeState }: Documents,
  modules: string[],
): Documents & { elsewhere: string[] } {
  const own = (resource: string) => modules.includes(moduleOfResource(resource));
  const ownOf = <T extends { resource: string }>(items: T[]) => items.filter((i) => own(i.resource));
  const others = <T>(items: T[], resource: (item: T) => string) => items.filter((i) => !own(resource(i)));
  const all = account(receipt, report, nodeState);
  const elsewhere = [
    ...others(all.held, (h) => h.resource).map((h) => `${h.resource} of ${h.module} held: ${h.reason}`),
    ...others(all.failed, (f) => f.resource).map((f) => `${f.resource} of ${f.module} failed: ${f.error}`),
    ...others(all.missing, (id) => id).map((id) => `${id} of ${moduleOfResource(id)} sent and not applied`),
    ...others(all.notSent, (id) => id).map((id) => `${id} of ${moduleOfResource(id)} applied and never sent`),
  ];
  const resourceIds = receipt.resourceIds.filter(own);
  const appliedIds = report.appliedIds.filter(own);
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
