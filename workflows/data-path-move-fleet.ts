import { CancellationScope, patched, workflowInfo } from '@temporalio/workflow';
import type { PathUser } from '../activities/docker/containers-using-path';
import type { UpgradePolicy } from '../mesh/schemas';
import { parseInput, Timings, type RunbookStatus } from './contracts';
import {
  DATA_PATH_MOVE_STANDS_FOR,
  DataPathMoveFleetInput,
  type DataPathMoveFleetInputArg,
} from './fleet/contracts';
import { moveFleetLocks } from './data-path-move-kind';
import { runFleet } from './fleet/run';
import { act, routeNodeWorkToNodes } from './runbook/activities';
import { refuse } from './runbook/failures';
import { Locks } from './runbook/locks';
import { takeLocks } from './runbook/open';
import type { Progress } from './runbook/progress';
import { MOVE_FLEET_RESUMES } from './runbook/revision';
import { PREFLIGHT } from './runbook/step-declarations';

/**
 * Moves a module's data on every node it is assigned to, node by node: each node's own data-path move runs
 * as a child workflow on that node's worker, the canary alone first, then waves (fleet/run.ts). The spec and
 * the upgrade policy are the module's, not a node's, so the fleet holds the module's lock throughout,
 * freezes the policy before the canary and restores it only once every node runs on the new path (or none
 * does); the canary's switch moves the spec for all, and each later node recreates its containers on B
 * only after its own copy is verified. A fleet approval lets a clean node remove its old data.
 */
export async function dataPathMoveFleet(rawInput: DataPathMoveFleetInputArg): Promise<RunbookStatus> {
  const input = parseInput(DataPathMoveFleetInput, rawInput);
  const { module, from, to } = input;
  const [first] = input.runbooks;
  const anyNode = first?.node ?? '';
  const locks = new Locks();
  let policyBefore: UpgradePolicy | undefined = input.policyBefore;
  /** The spec mounted B when this fleet began (an earlier move switched it): no node may put it back on A. */
  let resumed = false;

  return runFleet(
    input,
    {
      kind: 'data-path-move',
      standsFor: DATA_PATH_MOVE_STANDS_FOR,
      child: (runbook, approval, revertible) => ({
        kind: 'data-path-move',
        input: {
          ...runbook,
          fleet: {
            fleet: workflowInfo().workflowId,
            policy: policyBefore ?? 'manual',
            revertible: revertible && !resumed,
          },
          ...(approval ? { fleetApproval: approval } : {}),
        },
      }),
      begin: async (progress) => {
        await takeLocks(locks, moveFleetLocks({ module }), progress, first?.timings ?? Timings.parse({}));
        if (policyBefore !== undefined) return undefined;
        const began = await preflightAndFreeze(progress);
        policyBefore = began.policy;
        return began.moved;
      },
      end: (progress, allCompleted) =>
        CancellationScope.nonCancellable(async () => {
          try {
            return await restoreWhenSafe(progress, allCompleted);
          } finally {
            await locks.release();
          }
        }),
      // The next run asks for the module's lock again before it starts any node.
      beforeContinue: async () => {
        await locks.release();
        return policyBefore ? { policyBefore } : {};
      },
    },
    rawInput,
  );

  /**
   * Every node the module runs on is in the fleet, its containers mount A (or, once an earlier move switched
   * the spec to B, the nodes whose containers run on B already are named, not moved again); then the policy
   * is frozen.
   */
  async function preflightAndFreeze(
    progress: Progress,
  ): Promise<{ policy: UpgradePolicy; moved?: ReadonlyMap<string, string> }> {
    progress.mark(PREFLIGHT, 'running', `checks ${module} on every node`);
    const named = input.runbooks.map((runbook) => runbook.node);
    const assigned = await act.moduleNodes({ module });
    const left = assigned.filter((node) => !named.includes(node));
    if (left.length > 0)
      throw refuse(
        `${module} is assigned to ${left.join(', ')} too; its spec and policy are the same on every node, so the fleet must move them all: name them too (--nodes ${[...named, ...left].join(',')})`,
      );
    const strangers = named.filter((node) => !assigned.includes(node));
    if (strangers.length > 0) throw refuse(`${module} is not assigned to ${strangers.join(', ')}`);
    const spec = await act.readModuleSpec({ module });
    const onOld = await act.containersMounting({ node: anyNode, module, path: from });
    let moved: Map<string, string> | undefined;
    if (onOld.length === 0) {
      const onNew = await act.containersMounting({ node: anyNode, module, path: to });
      if (onNew.length === 0) throw refuse(`no container of ${module} mounts ${from}`);
      if (!patched(MOVE_FLEET_RESUMES))
        throw refuse(
          `${module}'s spec mounts ${to} already, not ${from}: an earlier move switched it; move what is left node by node`,
        );
      resumed = true;
      moved = await movedBefore(named);
      if (moved.size === named.length)
        throw refuse(`every node of ${module} runs on ${to} already: nothing is left to move`);
    }
    const stillOnA = named.filter((node) => !moved?.has(node));
    progress.mark(
      PREFLIGHT,
      'done',
      moved
        ? `${module} on ${named.length} nodes; its spec mounts ${to} already (an earlier move switched it): ${stillOnA.join(', ')} still on ${from}${moved.size > 0 ? `, ${[...moved.keys()].join(', ')} on ${to} (not moved again)` : ''}`
        : `${module} on ${named.length} nodes; ${onOld.join(', ')} mount ${from}`,
    );
    progress.mark('freeze-policy', 'running');
    await act.setUpgradePolicy({ module, policy: 'manual' });
    progress.mark(
      'freeze-policy',
      'done',
      `was ${spec.upgradePolicy}${resumed && spec.upgradePolicy === 'manual' ? ' (as the move before this one may have left it)' : ''}; manual until every node moved`,
    );
    return { policy: spec.upgradePolicy, ...(moved ? { moved } : {}) };
  }

  /**
   * The nodes whose containers of the module run on B already and none on A, each with what its own engine
   * shows: moved by an earlier run, they are not moved again. A node with a container still on A (or none at
   * all) is moved.
   */
  async function movedBefore(named: readonly string[]): Promise<Map<string, string>> {
    // Each node's engine is read by that node's own worker, as its runbook reads it.
    routeNodeWorkToNodes();
    const moved = new Map<string, string>();
    for (const node of named) {
      const own = (found: PathUser[]) => found.filter((c) => c.module === module && c.node === node);
      const onA = own(await act.containersUsingPath({ node, path: from }));
      const onB = own(await act.containersUsingPath({ node, path: to }));
      if (onA.length === 0 && onB.length > 0)
        moved.set(
          node,
          `runs on ${to} already (${onB.map((c) => `${c.name} mounts ${c.source}`).join(', ')}): moved before this fleet, not moved again`,
        );
    }
    return moved;
  }

  /**
   * Back to the policy it had once every node runs on B, or when the spec mounts A again (no node switched,
   * or the canary went back). Otherwise it stays manual: a roll-out would recreate the unmoved nodes'
   * containers on B, without their data (incident 2).
   */
  async function restoreWhenSafe(progress: Progress, allCompleted: boolean): Promise<string | undefined> {
    if (policyBefore === undefined) return undefined;
    const onNew = await act.containersMounting({ node: anyNode, module, path: to });
    if (allCompleted || onNew.length === 0) {
      await act.setUpgradePolicy({ module, policy: policyBefore });
      progress.mark('restore-policy', 'done', `back to ${policyBefore}`);
      return allCompleted
        ? undefined
        : `${module}'s policy back to ${policyBefore} (its spec mounts ${from})`;
    }
    const left = `left manual: ${module}'s spec mounts ${to} while not every node runs there, and a roll-out would recreate the others' containers on ${to} without their data; move the rest (start the move fleet again: it moves the nodes still on ${from}), then set it to ${policyBefore}`;
    progress.mark('restore-policy', 'skipped', left);
    return `${module}'s policy ${left}`;
  }
}
