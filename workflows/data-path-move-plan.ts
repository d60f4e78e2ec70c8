import { definePlan } from './runbook/plan';
import { applyGateStep, LOCKS_STEP, preflightStep, PUSH_STEP } from './runbook/step-declarations';

/** The data-path move's plan: its steps, gates and undos, read by the runbook, its Web UI details, the CLI and the policy. */
/** Between stop-containers and the push that starts them on B, a pause would keep the module down. */
const DOWN = 'the containers mounting A are stopped until the push starts them on B';

export const DATA_PATH_MOVE = definePlan({
  kind: 'data-path-move',
  purpose: "Move a module's data to a new host path; never leave a container silently on the old one.",
  steps: [
    LOCKS_STEP,
    preflightStep(
      'on every node of the module: real paths safe and apart, A exists and no other container uses it, B empty with room, the containers mounting A are the expected ones',
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
      name: 'check-target',
      noPauseBefore: DOWN,
      kind: 'gate',
      does: 'B must not be the truth already (a baseline of this move with data on B, or the spec mounting B, as after a Reset to before the copy), looked at before the stop and again before the copy: it then waits instead of stopping or copying, saying whether the module runs, and abort never removes B',
      actions: ['recheck', 'abort'],
    },
    {
      name: 'copy',
      noPauseBefore: DOWN,
      kind: 'action',
      does: 'copy A to B with owners, modes, times, links (resumes after a worker crash)',
      undo: { name: 'remove-copy', does: 'remove the copy (nothing has run on it yet)' },
    },
    {
      name: 'verify-copy',
      noPauseBefore: DOWN,
      kind: 'gate',
      does: 'compare count, bytes and sha256 of every file; recopy copies again',
      actions: ['recopy', 'abort'],
    },
    {
      name: 'record-baseline',
      noPauseBefore: DOWN,
      kind: 'action',
      does: 'remember A and B as verified, so a later catch-up tells new writes on B from old data on A',
    },
    {
      name: 'switch-spec',
      noPauseBefore: DOWN,
      kind: 'action',
      does: "point the module's mounts from A to B",
      undo: {
        name: 'switch-back',
        does: 'waits at after-switch: revert (spec and containers back on A) or keep (catch up and recreate on B)',
      },
    },
    { ...PUSH_STEP, noPauseBefore: DOWN },
    applyGateStep('no running container may still mount A', [
      'recreate',
      'retry',
      'recheck',
      'accept-restarts',
      'abort',
    ]),
    {
      name: 'catch-up',
      noPauseBefore: 'the module is down until its containers are recreated on B',
      kind: 'gate',
      does: 'bring to B only what changed on A since the copy; a file changed on both sides waits with its path, the module down; start-on-new starts it on B bringing nothing',
      actions: ['recheck', 'keep-new', 'start-on-new', 'abort'],
      when: 'after the operator chose recreate or keep; in a fleet, on every node before its push',
    },
    {
      name: 'recreate',
      noPauseBefore: 'the module is down until its containers are recreated on B',
      kind: 'action',
      does: 'recreate the containers still on A on B',
      when: 'after the operator chose recreate or keep; in a fleet, on every node before its push',
    },
    { name: 'restore-policy', kind: 'action', does: 'restore the roll-out policy recorded at freeze-policy' },
    {
      name: 'approve-remove-old-data',
      kind: 'approval',
      does: 'decide what happens to A; remove is offered only while no container uses A and a dry-run catch-up finds nothing written on A since the last baseline; while it waits, a container that comes to use A, or goes, asks anew',
      actions: ['remove', 'keep', 'recheck'],
      fourEyes: true,
    },
    {
      name: 'remove-old-data',
      kind: 'action',
      does: 'delete A (only after remove), checking right before that no container uses it; when one does, retry, keep (A stays, the move is done) or abort',
    },
    {
      name: 'after-switch',
      kind: 'approval',
      does: 'B may hold new writes: going back to A is the operator’s call',
      actions: ['revert', 'keep'],
      when: 'in a rollback after switch-spec',
    },
  ],
});
