import type { ModuleSpec } from '../../mesh/schemas';
import type { DataPathMoveInput, RunbookStatus } from '../contracts';
import { act, longAct } from '../runbook/activities';
import { refuse } from '../runbook/failures';
import { judgePush } from './judge-push-v1';
import { openRunbook } from '../runbook/open';
import { definePlan } from '../runbook/plan';
import type { Look } from '../runbook/runbook';
import { applyGateStep, GATE_APPLY, PREFLIGHT, preflightStep, PUSH_STEP } from '../runbook/step-declarations';
import { pushNode } from '../runbook/shared-steps';

/** The plan as runbooks started before revision 2 ran it. */
export const DATA_PATH_MOVE_V1 = definePlan({
  revision: 1,
  kind: 'data-path-move',
  purpose: "Move a module's data to a new host path; never leave a container silently on the old one.",
  steps: [
    preflightStep(
      'paths are safe, A exists, B is empty with room, the containers mounting A are the expected ones',
    ),
    {
      name: 'freeze-policy',
      kind: 'action',
      does: "set the module's roll-out policy to manual",
      undo: { name: 'unfreeze-policy', does: 'restore the old policy' },
    },
    {
      name: 'stop-containers',
      kind: 'action',
      does: 'stop the containers mounting A',
      undo: { name: 'restart-on-old-path', does: 'start them again on A' },
    },
    {
      name: 'copy',
      kind: 'action',
      does: 'copy A to B with owners, modes, times, links (resumes after a worker crash)',
      undo: { name: 'remove-copy', does: 'remove the copy' },
    },
    {
      name: 'verify-copy',
      kind: 'gate',
      does: 'compare count, bytes and sha256 of every file; recopy copies again',
      actions: ['recopy', 'abort'],
    },
    {
      name: 'switch-spec',
      kind: 'action',
      does: "point the module's mounts from A to B",
      undo: {
        name: 'switch-back',
        does: 'waits at after-switch: revert (spec and containers back on A) or keep (catch up and recreate on B)',
      },
    },
    PUSH_STEP,
    applyGateStep('no running container may still mount A', ['recreate', 'retry', 'recheck', 'abort']),
    {
      name: 'recreate',
      kind: 'action',
      does: 'stop the containers, catch the copy up and verify it, recreate them on B',
      when: 'after the operator chose recreate or keep',
    },
    { name: 'restore-policy', kind: 'action', does: 'restore the roll-out policy recorded at freeze-policy' },
    {
      name: 'approve-remove-old-data',
      kind: 'approval',
      does: 'decide what happens to A',
      actions: ['remove', 'keep'],
      fourEyes: true,
    },
    { name: 'remove-old-data', kind: 'action', does: 'delete A (only after remove)' },
    {
      name: 'after-switch',
      kind: 'approval',
      does: 'B may hold new writes: going back to A is the operator’s call',
      actions: ['revert', 'keep'],
      when: 'in a rollback after switch-spec',
    },
  ],
});

/**
 * Frozen: how data-path-move ran before revision 2 (committed histories and runbooks in flight replay through it).
 * Change nothing here; change workflows/data-path-move.ts behind its patch instead.
 */
export async function dataPathMoveV1(input: DataPathMoveInput): Promise<RunbookStatus> {
  const { node, module, from, to, timings } = input;

  return openRunbook(DATA_PATH_MOVE_V1, input, async (rb) => {
    const { size, onOld, spec } = await rb.step(
      PREFLIGHT,
      () => preflight(input),
      (p) => p.note,
    );
    const oldPolicy = spec.upgradePolicy;

    const unfreeze = rb.undo('unfreeze-policy', () => act.setUpgradePolicy({ module, policy: oldPolicy }));
    await rb.step(
      'freeze-policy',
      () => act.setUpgradePolicy({ module, policy: 'manual' }),
      () => `was ${oldPolicy}; manual until the move is done`,
    );

    const restartOnOld = rb.undo('restart-on-old-path', async () => {
      await act.startContainers({ node, module, containers: onOld });
    });
    await stopContainers('');

    const removeCopy = rb.undo('remove-copy', () => act.removeTree({ node, path: to }));
    await copyAndVerify();

    removeCopy.forget();
    restartOnOld.forget();
    const switchBack = rb.undo('switch-back', () => revertOrKeep(spec));
    await rb.step(
      'switch-spec',
      () => act.moveModuleMounts({ module, from, to }),
      (r) => `${r.changed.join(', ')} now mount ${to}`,
    );

    let receipt = await pushNode(rb, node);
    await rb.gate(GATE_APPLY, () => judgePush({ node, module, oldHostPaths: [from] }, receipt, timings), {
      retry: async () => (receipt = await pushNode(rb, node)),
      recreate: catchUpAndRecreate,
    });

    await rb.step(
      'restore-policy',
      () => act.setUpgradePolicy({ module, policy: oldPolicy }),
      () => `back to ${oldPolicy}`,
    );
    unfreeze.forget();
    switchBack.forget();

    const fate = await rb.approve(
      'approve-remove-old-data',
      `${module} runs on ${to} with its data verified (${size.files} files, ${size.bytes} bytes); remove deletes ${from}, keep leaves it in place.`,
    );
    if (fate === 'remove')
      await rb.step(
        'remove-old-data',
        () => act.removeTree({ node, path: from }),
        () => `removed ${from}`,
      );
    else rb.skip('remove-old-data', `${from} kept`);
    return rb.done(`${module} runs on ${to}; ${from} ${fate === 'remove' ? 'removed' : 'kept'}`);

    function stopContainers(why: string) {
      return rb.step(
        'stop-containers',
        () => act.stopContainers({ node, module, containers: onOld }),
        (r) => `stopped ${r.stopped.join(', ')}${why}`,
      );
    }

    async function copyAndVerify(): Promise<void> {
      const copy = () =>
        rb.step(
          'copy',
          () => longAct.copyTree({ node, from, to }),
          (r) => `${r.files} files, ${r.bytes} bytes${r.resumed ? ' (resumed)' : ''}`,
        );
      await copy();
      await rb.gate('verify-copy', verifyCopy, { recopy: copy });
    }

    /**
     * The push restarted the containers as they were, on A, so they may have written there since the copy:
     * stop them, bring B up to date and verify it again, and only then recreate them on B.
     */
    async function catchUpAndRecreate(): Promise<void> {
      await stopContainers(' to catch up the copy');
      await copyAndVerify();
      await rb.step(
        'recreate',
        () => act.recreateContainers({ node, module, containers: onOld }),
        (r) => `recreated ${r.recreated.join(', ') || 'nothing'}`,
      );
    }

    /** After the switch, B may hold new writes: going back to A is the operator's call, never automatic. */
    async function revertOrKeep(original: ModuleSpec): Promise<void> {
      const choice = await rb.approve(
        'after-switch',
        `The runbook stopped after ${module}'s spec moved to ${to}, which may hold new writes; revert puts the spec and its containers back on ${from}, keep leaves ${module} on ${to} and recreates there any container still on ${from}.`,
      );
      // The spec says B; a container the push left on A would be moved by the next build once the
      // roll-out policy is restored (incident 2). Keep makes the containers match the spec now.
      if (choice === 'keep') return catchUpAndRecreate();
      await act.restoreModuleSpec({ spec: { ...original, upgradePolicy: 'manual' } });
      await act.recreateContainers({ node, module, containers: onOld });
    }
  });

  async function verifyCopy(): Promise<Look> {
    const verified = await longAct.verifyTree({ node, from, to });
    const counted = `${verified.files} files, ${verified.bytes} bytes`;
    if (verified.mismatchCount === 0) return { ok: true, note: counted };
    return {
      ok: false,
      note: `${verified.mismatchCount} paths differ`,
      verdict: 'failed',
      reason: `The copy of ${from} at ${to} differs in ${verified.mismatchCount} path(s): ${verified.mismatches.slice(0, 5).join(', ')}; recopy copies again and verifies, abort restarts ${module} on ${from}.`,
      actions: ['recopy', 'abort'],
      facts: [`${counted} checked`, ...verified.mismatches.slice(0, 20).map((path) => `differs: ${path}`)],
    };
  }
}

async function preflight(input: DataPathMoveInput) {
  const { node, module, from, to } = input;
  const size = await act.preflightMove({ node, from, to });
  const spec = await act.readModuleSpec({ module });
  const onOld = await act.containersMounting({ node, module, path: from });
  if (onOld.length === 0) throw refuse(`no container of ${module} mounts ${from}`);
  const expected = [...input.containers].sort();
  if (expected.length > 0 && expected.join() !== [...onOld].sort().join()) {
    throw refuse(
      `the containers mounting ${from} are ${onOld.join(', ')}, not the expected ${expected.join(', ')}`,
    );
  }
  return {
    size,
    onOld,
    spec,
    note: `${size.files} files, ${size.bytes} bytes; ${onOld.join(', ')} mount ${from}`,
  };
}
