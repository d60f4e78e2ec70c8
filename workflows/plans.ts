import type { RunbookKind } from './contracts';

/** One step of a runbook's plan as the Web UI's static details describe it. */
export interface PlannedStep {
  name: string;
  does: string;
  /** When it stops for the operator, and which actions it offers then. */
  waits?: string;
  /** What undoes it if the runbook is aborted or rolls back later. */
  undo?: string;
}

const FAILED_STEP = 'a failed step waits for retry or abort';

export const PLANS: Record<RunbookKind, PlannedStep[]> = {
  'edge-flip': [
    {
      name: 'preflight',
      does: 'the predecessor runs and serves every public name; the successor does not run yet',
    },
    {
      name: 'assign-successor',
      does: 'assign the successor module to the node',
      undo: 'unassign it and push',
    },
    { name: 'push', does: 'push the node and keep the receipt' },
    {
      name: 'gate-apply',
      does: "judge this push's apply report, the node's holds and the successor's containers",
      waits: 'held → take | recheck | abort; drift, failed, unreadable → retry | recheck | abort',
    },
    {
      name: 'take',
      does: 'take the resources the node holds for the successor (only if the operator chose take)',
    },
    {
      name: 'verify-successor',
      does: 'successor containers running, healthy and stable (no restarts)',
      waits: 'as gate-apply',
    },
    {
      name: 'probe-successor',
      does: 'every public name answers from the successor with its marker',
      waits: 'recheck | abort',
    },
    {
      name: 'approve-stop-predecessor',
      does: 'approval before the only destructive step',
      waits: 'always: approve | abort (four eyes by default: not the operator who started the runbook)',
    },
    {
      name: 'stop-predecessor',
      does: "stop the predecessor's containers",
      undo: 'take the successor off the node, restart the predecessor, probe the public names',
    },
    {
      name: 'probe-public',
      does: 'every public name answers from the successor on the public address; else roll back',
    },
  ],
  'data-path-move': [
    {
      name: 'preflight',
      does: 'paths are safe, A exists, B is empty with room, the containers mounting A are the expected ones',
    },
    {
      name: 'freeze-policy',
      does: "set the module's roll-out policy to manual",
      undo: 'restore the old policy',
    },
    { name: 'stop-containers', does: 'stop the containers mounting A', undo: 'start them again on A' },
    {
      name: 'copy',
      does: 'copy A to B with owners, modes, times, links (resumes after a worker crash)',
      undo: 'remove the copy',
    },
    {
      name: 'verify-copy',
      does: 'compare count, bytes and sha256 of every file',
      waits: 'differences → recopy | abort',
    },
    {
      name: 'switch-spec',
      does: "point the module's mounts from A to B",
      undo: 'waits for the operator: revert (spec and containers back on A) or keep (catch up and recreate on B)',
    },
    { name: 'push', does: 'push the node and keep the receipt' },
    {
      name: 'gate-apply',
      does: 'no running container may still mount A',
      waits: 'unrecreated-volume → recreate (stop, catch the copy up, verify, recreate) | abort',
    },
    { name: 'restore-policy', does: 'restore the roll-out policy recorded at freeze-policy' },
    {
      name: 'approve-remove-old-data',
      does: 'decide what happens to A',
      waits: 'always: remove | keep (four eyes by default: not the operator who started the runbook)',
    },
    { name: 'remove-old-data', does: 'delete A (only after remove)' },
  ],
};

/** The runbook's static details: its plan, gates and compensations, fixed at start. */
export function renderPlan(kind: RunbookKind): string {
  return [
    `### Plan of ${kind}`,
    ...PLANS[kind].map(
      (step, i) =>
        `${i + 1}. **${step.name}**: ${step.does}${step.waits ? `. Waits: ${step.waits}` : ''}${step.undo ? `. Undo: ${step.undo}` : ''}`,
    ),
    '',
    `Every gate waits as long as it takes and reminds the operators; ${FAILED_STEP}. Abort runs the undo steps, last first.`,
  ].join('\n');
}
