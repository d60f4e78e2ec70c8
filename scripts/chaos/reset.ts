import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { History } from '@temporalio/common/lib/proto-utils';
import {
  activityResults,
  digestDifferences,
  moveInput,
  seedForge,
  treeDigest,
} from '../../test/support/data-move';
import { runbookWorld } from '../../test/support/runbook-world';
import { decide, statusWhen, waitingAt } from '../../test/support/runbooks';
import { markOnceSettled, resetRun, taskPoints, type TaskPoint } from '../../test/support/reset';
import { dataPathMove } from '../../workflows';
import { runbookWorkflowId, statusQuery, type RunbookStatus } from '../../workflows/contracts';
import type { ExperimentResult, RunResult } from './result';

/** Each workflow task after the locks were granted up to the one that scheduled the first copy. */
function resetPoints(history: History): TaskPoint[] {
  const granted = (history.events ?? []).findIndex(
    (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'locksGranted',
  );
  const points = taskPoints(history, granted);
  const copy = points.findIndex((p) => p.before === 'copyTree');
  return copy < 0 ? points : points.slice(0, copy + 1);
}

/**
 * Experiment 11: Temporal Resets of a data-path move that had switched to B and whose service wrote there
 * (`temporal workflow reset` to an event, the Web UI's Reset button), to every workflow task between its
 * locks and its copy (`--quick`: three of them). Each reset run must copy nothing over B (B keeps what the
 * service wrote) and stop: refused at preflight (B is not empty) when reset into it, ending there, else
 * waiting at check-target; once it ended (an abort at check-target) the module runs on B with its policy
 * back, B in place and the node's mark gone (the reset run carried its base's mark and ended cleanly). A copy over B counts as a duplicated side effect, a reset run that went on
 * past check-target as a wrong proceed, one that never waited as lost.
 */
export async function resets(quick: boolean, log: (line: string) => void): Promise<ExperimentResult> {
  const started = Date.now();
  const runs: RunResult[] = [];
  await using world = await runbookWorld();
  const forge = await seedForge(world);
  const first = await world.start(dataPathMove, moveInput(forge));
  await statusWhen(first, waitingAt('gate-apply'), 120_000);
  await decide(first, 'recreate', 'gate-apply');
  await statusWhen(first, waitingAt('approve-remove-old-data'), 120_000);
  await writeFile(join(forge.hostTo, 'written-on-b.txt'), 'written by the service on B\n');
  await writeFile(join(forge.hostTo, 'index.html'), 'changed by the service on B\n');
  const onB = await treeDigest(forge.hostTo);
  const all = resetPoints(await first.fetchHistory());
  const points = quick
    ? [all[1], all[Math.floor(all.length / 2)], all.at(-1)].filter((p) => p !== undefined)
    : all;
  for (const point of points) {
    const name = `reset to event ${point.task} (before ${point.before})`;
    const notes: string[] = [];
    const counts = { lost: 0, duplicated: 0, wrongProceeds: 0 };
    const { run: reset } = await resetRun(
      world.client,
      runbookWorkflowId(forge.node),
      first.firstExecutionRunId,
      point.task,
      `chaos: ${name}`,
    );
    const looked: RunbookStatus | undefined = await statusWhen(
      reset,
      (s) => s.phase !== 'running',
      120_000,
    ).catch(() => undefined);
    const gate = looked?.waiting?.gate;
    const refused =
      looked?.phase === 'failed' && looked.steps.some((s) => s.name === 'preflight' && s.state === 'failed');
    if (refused) {
      await reset.result().catch(() => undefined);
      const mark = await markOnceSettled(world.client, forge.node, 90_000);
      if (mark.kind !== 'none') notes.push(`the node's mark is ${mark.kind} after a refusal`);
    } else if (gate !== 'check-target') {
      counts.lost++;
      notes.push(
        `the reset run ${looked ? `is ${looked.phase} at ${looked.waiting?.gate ?? '-'}` : 'never waited'}`,
      );
      if (looked?.steps.some((s) => s.name === 'copy' && s.state === 'done')) counts.wrongProceeds++;
      await reset.terminate('chaos: reset run off course').catch(() => undefined);
    } else {
      await decide(reset, 'abort', gate);
      await reset.result().catch(() => undefined);
      const ended = await reset.query(statusQuery);
      if (ended.phase !== 'aborted') notes.push(`ended ${ended.phase}: ${ended.outcome ?? ''}`);
      // A reset run that ended cleanly lets its base's mark go.
      const mark = await markOnceSettled(world.client, forge.node, 90_000);
      if (mark.kind !== 'none') notes.push(`the node's mark is ${mark.kind} after a clean abort`);
    }
    const history = await reset.fetchHistory();
    if (activityResults(history, 'copyTree').length > 0) counts.wrongProceeds++;
    const changed = digestDifferences(onB, await treeDigest(forge.hostTo).catch(() => new Map()));
    if (changed.length > 0) {
      counts.duplicated++;
      notes.push(`B changed: ${changed.slice(0, 3).join('; ')}`);
    }
    const info = await world.engine.inspect(forge.web);
    if (!info?.State.Running || info.Mounts[0]?.Source !== forge.hostTo)
      notes.push(
        `the module is ${info?.State.Running ? 'running' : 'down'} on ${info?.Mounts[0]?.Source ?? '?'}`,
      );
    const policy = (await world.mesh.moduleSpec(forge.module)).upgradePolicy;
    if (policy !== 'roll-out') notes.push(`policy ${policy}`);
    const passed = notes.length === 0 && counts.lost + counts.duplicated + counts.wrongProceeds === 0;
    runs.push({ name, passed, ...counts, notes });
    log(`  ${name}: ${passed ? 'held' : notes.join('; ')}`);
  }
  return { experiment: 'reset', runs, seconds: (Date.now() - started) / 1000 };
}
