import { ApplicationFailure } from '@temporalio/workflow';
import type { ModuleSpec } from '../mesh/schemas';
import {
  DataPathMoveInput,
  FAILURE,
  parseInput,
  type DataPathMoveInputArg,
  type RunbookStatus,
} from './contracts';
import { act, longAct } from './runbook/activities';
import { applyGate } from './runbook/apply-gate';
import { finish } from './runbook/finish';
import { openRunbook } from './runbook/open';
import { abortedBy } from './runbook/steps';

export const DATA_PATH_MOVE_PLAN = [
  'preflight',
  'freeze-policy',
  'stop-containers',
  'copy',
  'verify-copy',
  'switch-spec',
  'push',
  'gate-apply',
  'restore-policy',
  'approve-remove-old-data',
  'remove-old-data',
] as const;

/** Move a module's data to a new host path; never leave a container silently on the old one. */
export async function dataPathMove(rawInput: DataPathMoveInputArg): Promise<RunbookStatus> {
  const input = parseInput(DataPathMoveInput, rawInput);
  const { node, module, from, to, timings } = input;
  const { progress, decisions, undo, ctx, run, push } = await openRunbook(
    { kind: 'data-path-move', node, module, startedBy: input.startedBy },
    DATA_PATH_MOVE_PLAN,
  );
  let originalSpec: ModuleSpec | undefined;
  let onOldPath: string[] = [];

  try {
    const { size, onOld, spec } = await run(
      'preflight',
      () => preflight(input),
      (p) => p.note,
    );
    const oldPolicy = spec.upgradePolicy;

    undo.push('restore-policy', () => act.setUpgradePolicy({ module, policy: oldPolicy }));
    await run(
      'freeze-policy',
      () => act.setUpgradePolicy({ module, policy: 'manual' }),
      () => `was ${oldPolicy}; manual until the move is done`,
    );

    undo.push(
      'restart-on-old-path',
      async () => void (await act.startContainers({ node, module, containers: onOld })),
    );
    await run(
      'stop-containers',
      () => act.stopContainers({ node, module, containers: onOld }),
      (r) => `stopped ${r.stopped.join(', ')}`,
    );

    undo.push('remove-copy', () => act.removeTree({ node, path: to }));
    await copyAndVerify();

    undo.forget('remove-copy', 'restart-on-old-path');
    undo.push('switch-back', () => switchBack());
    await run(
      'switch-spec',
      () => act.moveModuleMounts({ module, from, to }),
      (r) => `${r.changed.join(', ')} now mount ${to}`,
    );

    await applyGate('gate-apply', { node, module, oldHostPaths: [from] }, await push(), timings, ctx, {
      retry: push,
      recreate: resyncAndRecreate,
    });

    await run(
      'restore-policy',
      () => act.setUpgradePolicy({ module, policy: oldPolicy }),
      () => `back to ${oldPolicy}`,
    );
    undo.forget('restore-policy', 'switch-back');

    const approval = await decisions.await({
      gate: 'approve-remove-old-data',
      verdict: 'approval',
      reason: `${module} runs on ${to} with its data verified (${size.files} files, ${size.bytes} bytes); remove deletes ${from}, keep leaves it in place.`,
      actions: ['remove', 'keep'],
    });
    progress.mark('approve-remove-old-data', 'done', `${approval.action} by ${approval.by}`);
    if (approval.action === 'remove')
      await run(
        'remove-old-data',
        () => act.removeTree({ node, path: from }),
        () => `removed ${from}`,
      );
    else progress.mark('remove-old-data', 'skipped', `${from} kept`);
    progress.end(
      'completed',
      `${module} runs on ${to}; ${from} ${approval.action === 'remove' ? 'removed' : 'kept'}`,
    );
    return progress.status;
  } catch (error) {
    throw await finish(error, progress, undo);
  }

  async function copyAndVerify(): Promise<void> {
    for (;;) {
      await run(
        'copy',
        () => longAct.copyTree({ node, from, to }),
        (r) => `${r.files} files, ${r.bytes} bytes${r.resumed ? ' (resumed)' : ''}`,
      );
      const verified = await run(
        'verify-copy',
        () => longAct.verifyTree({ node, from, to }),
        (r) => `${r.files} files, ${r.bytes} bytes`,
      );
      if (verified.mismatchCount === 0) return;
      progress.mark('verify-copy', 'waiting', `${verified.mismatchCount} paths differ`);
      const decision = await decisions.await({
        gate: 'verify-copy',
        verdict: 'failed',
        reason: `The copy of ${from} at ${to} differs in ${verified.mismatchCount} path(s): ${verified.mismatches.slice(0, 5).join(', ')}; recopy copies again and verifies, abort restarts ${module} on ${from}.`,
        actions: ['recopy', 'abort'],
        facts: [
          `${verified.files} files, ${verified.bytes} bytes checked`,
          ...verified.mismatches.slice(0, 20).map((path) => `differs: ${path}`),
        ],
      });
      if (decision.action === 'abort') throw abortedBy(decision.by, 'verify-copy');
    }
  }

  /**
   * The push restarted the containers as they were, on A, so they may have written there since the copy:
   * stop them, bring B up to date and verify it again, and only then recreate them on B.
   */
  async function resyncAndRecreate(): Promise<void> {
    await run(
      'stop-containers',
      () => act.stopContainers({ node, module, containers: onOldPath }),
      (r) => `stopped ${r.stopped.join(', ')} to catch up the copy`,
    );
    await copyAndVerify();
    await run(
      'recreate',
      () => act.recreateContainers({ node, module, containers: onOldPath }),
      (r) => `recreated ${r.recreated.join(', ') || 'nothing'}`,
    );
  }

  /** After the switch, B may hold new writes: going back to A is the operator's call, never automatic. */
  async function switchBack(): Promise<void> {
    const decision = await decisions.await({
      gate: 'after-switch',
      verdict: 'approval',
      reason: `The runbook stopped after ${module}'s spec moved to ${to}, which may hold new writes; revert puts the spec and its containers back on ${from}, keep leaves ${module} on ${to} and recreates there any container still on ${from}.`,
      actions: ['revert', 'keep'],
    });
    if (decision.action === 'keep') {
      // The spec says B; a container the push left on A would be moved by the next build once the
      // roll-out policy is restored (incident 2). Keep makes the containers match the spec now.
      return resyncAndRecreate();
    }
    if (!originalSpec) return;
    await act.restoreModuleSpec({ spec: { ...originalSpec, upgradePolicy: 'manual' } });
    await act.recreateContainers({ node, module, containers: onOldPath });
  }

  async function preflight(i: typeof input) {
    const size = await act.preflightMove({ node: i.node, from: i.from, to: i.to });
    const spec = await act.readModuleSpec({ module: i.module });
    const onOld = await act.containersMounting({ node: i.node, module: i.module, path: i.from });
    const refuse = (why: string) => ApplicationFailure.nonRetryable(why, FAILURE.preflightFailed);
    if (onOld.length === 0) throw refuse(`no container of ${i.module} mounts ${i.from}`);
    const expected = [...i.containers].sort();
    if (expected.length > 0 && expected.join() !== [...onOld].sort().join()) {
      throw refuse(
        `the containers mounting ${i.from} are ${onOld.join(', ')}, not the expected ${expected.join(', ')}`,
      );
    }
    originalSpec = spec;
    onOldPath = onOld;
    return {
      size,
      onOld,
      spec,
      note: `${size.files} files, ${size.bytes} bytes; ${onOld.join(', ')} mount ${i.from}`,
    };
  }
}
