import { definePlan } from './runbook/plan';
import { applyGateStep, LOCKS_STEP, preflightStep, PUSH_STEP } from './runbook/step-declarations';

/** The edge flip's plan: its steps, gates and undos, read by the runbook, its Web UI details, the CLI and the policy. */
export const EDGE_FLIP = definePlan({
  kind: 'edge-flip',
  purpose:
    "Replace a node's edge proxy with its successor, never stopping the old one before the new one is proven.",
  steps: [
    LOCKS_STEP,
    preflightStep('the predecessor runs and serves every public name; the successor does not run yet'),
    {
      name: 'assign-successor',
      kind: 'action',
      does: 'assign the successor module to the node',
      undo: {
        name: 'unassign-successor',
        does: 'unassign it, push, and judge that push: nothing held or drifting, none of its containers left',
      },
    },
    PUSH_STEP,
    applyGateStep("judge this push's apply report, the node's holds and the successor's containers", [
      'take',
      'retry',
      'recheck',
      'accept-restarts',
      'abort',
    ]),
    {
      name: 'take',
      kind: 'action',
      does: 'take the resources the node holds for the successor, then push again (only if the operator chose take)',
    },
    {
      name: 'verify-successor',
      kind: 'gate',
      does: 'successor containers running, healthy, on the current spec, not restarted since first seen',
      actions: ['retry', 'recheck', 'accept-restarts', 'abort'],
    },
    {
      name: 'probe-successor',
      kind: 'gate',
      does: 'every public name answers from the successor with its marker',
      actions: ['recheck', 'abort'],
    },
    {
      name: 'approve-stop-predecessor',
      kind: 'approval',
      does: "approval before the only destructive step; while it waits, the successor's containers are watched, and a change ends the ask (recheck-successor)",
      actions: ['approve', 'abort'],
      fourEyes: true,
    },
    {
      name: 'recheck-successor',
      kind: 'gate',
      does: 'right after the approval, or as soon as a successor container changed while it waited, the successor verified and probed again; if anything changed it waits (telling the operators at once), then asks for approval anew',
      actions: ['recheck', 'accept-restarts', 'abort'],
    },
    {
      name: 'stop-predecessor',
      kind: 'action',
      does: "stop the predecessor's containers",
      undo: {
        name: 'restart-predecessor',
        does: "find the predecessor's containers on the node (a push brings back those the clean push removed; still gone, the successor is left serving and the step waits), stop the successor's containers, start the predecessor, probe that the predecessor itself answers, then take the successor off through mesh",
      },
    },
    {
      name: 'probe-public',
      kind: 'action',
      does: 'every public name answers from the successor on the public address; else roll back at once',
      noPauseBefore: 'the predecessor is stopped: the public names must be proven served first',
    },
    {
      name: 'unassign-predecessor',
      kind: 'action',
      does: 'unassign the predecessor, so no later push brings it back to fight the successor for its ports',
      undo: {
        name: 'reassign-predecessor',
        does: 'assign the predecessor again (its containers return on the next push)',
      },
    },
    {
      name: 'gate-clean',
      kind: 'gate',
      does: "push and judge it like any other: the node's report, holds and drift, the successor healthy, no predecessor container left",
      actions: ['retry', 'recheck', 'accept-restarts', 'abort'],
    },
  ],
});
