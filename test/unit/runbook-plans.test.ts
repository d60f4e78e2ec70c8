import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DATA_PATH_MOVE } from '../../workflows/data-path-move-plan';
import type { EDGE_FLIP } from '../../workflows/edge-flip-plan';
import { DECISION_POINTS, FOUR_EYES_GATES, PLANS, renderPlan } from '../../workflows/plans';
import type { ActionAt, ApprovalName, GateName, StepName, UndoName } from '../../workflows/runbook/plan';
import { listedSteps } from '../../workflows/runbook/plan';

type Edge = typeof EDGE_FLIP;
type Move = typeof DATA_PATH_MOVE;

/** `tsc --noEmit` (part of the test command) fails if any of these misspelt names type-checks. */
export const typos = {
  // @ts-expect-error a misspelt step
  step: 'asign-successor' satisfies StepName<Edge>,
  // @ts-expect-error an action the gate does not offer
  action: 'aprove' satisfies ActionAt<Edge, 'approve-stop-predecessor'>,
  // @ts-expect-error a step that is not a gate
  gate: 'stop-predecessor' satisfies GateName<Edge>,
  // @ts-expect-error an approval of the other runbook
  approval: 'approve-remove-old-data' satisfies ApprovalName<Edge>,
  // @ts-expect-error a misspelt undo
  undo: 'remove-cpy' satisfies UndoName<Move>,
  spelt: ['remove-copy' satisfies UndoName<Move>, 'recopy' satisfies ActionAt<Move, 'verify-copy'>],
};

describe('runbook plans', () => {
  for (const plan of Object.values(PLANS)) {
    it(`${plan.kind}: step and undo names are unique, every wait offers its actions`, () => {
      const names = plan.steps.map((step) => step.name);
      const undos = plan.steps.flatMap((step) => ('undo' in step && step.undo ? [step.undo.name] : []));
      assert.equal(new Set([...names, ...undos]).size, names.length + undos.length);
      for (const step of plan.steps) {
        const actions: readonly string[] = 'actions' in step ? step.actions : [];
        if (step.kind === 'action') assert.deepEqual(actions, [], `${step.name} is an action: no decisions`);
        else assert.ok(actions.length >= 2, `${step.name} waits with at least two actions`);
      }
      assert.ok(renderPlan(plan.kind).includes(`**${names.at(-1)}**`));
    });
  }

  it('the default four-eyes gates are the approvals the plans mark, and decisions are made at plan steps only', () => {
    assert.deepEqual([...FOUR_EYES_GATES], ['approve-stop-predecessor', 'approve-remove-old-data']);
    assert.ok(DECISION_POINTS.includes('gate-apply') && !DECISION_POINTS.includes('unassign-successor'));
  });

  it('a run lists the steps every path takes; the ones a decision or a rollback adds join when they run', () => {
    assert.deepEqual(listedSteps(PLANS['data-path-move']).slice(-3), [
      'restore-policy',
      'approve-remove-old-data',
      'remove-old-data',
    ]);
    assert.ok(!listedSteps(PLANS['data-path-move']).includes('after-switch'));
  });
});
