import { rm, stat } from 'node:fs/promises';
import type { DockerEngine } from '../../docker/engine';
import type { ApplyReport } from '../schemas';
import { applyPush } from './apply';
import { StateLayout } from './layout';
import { withLock } from './lock';
import { pendingPushes, readNodeAgentState, saveApply } from './node-store';

export interface AgentOptions {
  engine: DockerEngine;
  /** How long to wait for another agent (or a build) working on this node. */
  lockTimeoutMs?: number;
  log?: (message: string) => void;
}

/**
 * The node agent: under the node lock, applies every pending push in push order, records each apply
 * report in the node's state and journal, then removes the push from the inbox. Pushes that arrive
 * meanwhile are applied in the same run. A crash leaves the push in the inbox for the next run; applying
 * it again is harmless (dirs exist, running containers are left as they are).
 */
export async function runNodeAgent(
  stateDir: string,
  node: string,
  options: AgentOptions,
): Promise<ApplyReport[]> {
  const layout = new StateLayout(stateDir);
  const log = options.log ?? (() => undefined);
  // A node whose state dir is gone (e.g. a test cleaned it up) has nothing to apply: do not recreate it.
  if (!(await stat(layout.nodeDir(node)).catch(() => undefined))) return [];
  return withLock(layout.nodeLock(node), { timeoutMs: options.lockTimeoutMs ?? 300_000 }, async () => {
    const reports: ApplyReport[] = [];
    for (;;) {
      const pending = await pendingPushes(layout, node, (error) =>
        log(`skipped an unreadable push: ${error.message}`),
      );
      if (pending.length === 0) return reports;
      for (const { file, push } of pending) {
        const state = await readNodeAgentState(layout, node);
        const { report, owned } = await applyPush(push, state.owned, options.engine);
        await saveApply(layout, state, report, owned);
        await rm(file, { force: true });
        log(
          `${push.pushId}: applied ${report.applied}, held ${report.held.length}, failed ${report.failed.length}`,
        );
        reports.push(report);
      }
    }
  });
}
