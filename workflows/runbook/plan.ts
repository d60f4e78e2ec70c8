export type StepKind = 'action' | 'gate' | 'approval';

/** A step of a runbook's plan: what it does, when it waits and what it offers then, what undoes it. */
export interface PlannedStep {
  readonly name: string;
  readonly kind: StepKind;
  /** One line: what the step does or checks. */
  readonly does: string;
  /** The decisions a gate or approval offers when it waits (a failed activity offers retry and abort). */
  readonly actions?: readonly string[];
  /** The named inverse registered before the step runs, and what it does. */
  readonly undo?: { readonly name: string; readonly does: string };
  /** Runs only on some paths; such a step joins the live step list when it first runs. */
  readonly when?: string;
  /** An approval before something no decision can take back: four eyes unless the policy says otherwise. */
  readonly fourEyes?: boolean;
  /** Why a pause never holds right before this step (it would prolong an outage): it holds at a later one. */
  readonly noPauseBefore?: string;
}

export interface RunbookPlan {
  /** The kind's name (workflows/kinds.ts). */
  readonly kind: string;
  /** What the runbook is for, in one line. */
  readonly purpose: string;
  readonly steps: readonly PlannedStep[];
}

/** Declares a plan with its names as literal types, so a misspelt step, gate, action or undo fails `tsc`. */
export function definePlan<const P extends RunbookPlan>(plan: P): P {
  return plan;
}

type StepOf<P extends RunbookPlan> = P['steps'][number];
export type StepName<P extends RunbookPlan> = StepOf<P>['name'];
export type GateName<P extends RunbookPlan> = Extract<StepOf<P>, { kind: 'gate' }>['name'];
export type ApprovalName<P extends RunbookPlan> = Extract<StepOf<P>, { kind: 'approval' }>['name'];
type UndoOf<S> = S extends { readonly undo: { readonly name: infer N extends string } } ? N : never;
export type UndoName<P extends RunbookPlan> = UndoOf<StepOf<P>>;
type ActionsOf<S> = S extends { readonly actions: readonly (infer A extends string)[] } ? A : never;
export type ActionAt<P extends RunbookPlan, G extends string> = ActionsOf<Extract<StepOf<P>, { name: G }>>;

/** The steps every run lists from its start: all but those that run only on some paths. */
export function listedSteps(plan: RunbookPlan): string[] {
  return plan.steps.filter((step) => step.when === undefined).map((step) => step.name);
}

export function plannedStep(plan: RunbookPlan, name: string): PlannedStep | undefined {
  return plan.steps.find((step) => step.name === name);
}

function waits(step: PlannedStep): string {
  const actions = (step.actions ?? []).join(' | ');
  if (step.kind === 'approval')
    return `. Waits: always, ${actions}${step.fourEyes ? ' (four eyes by default: not the operator who started the runbook)' : ''}`;
  if (step.kind === 'gate') return `. Waits: when the evidence is not ok, ${actions}`;
  return '';
}

/** The plan as `--help` shows it in a terminal: each step, what it does, where it waits and with what. */
export function planAsText(plan: RunbookPlan): string {
  const width = Math.max(...plan.steps.map((step) => step.name.length));
  return [
    `${plan.kind}: ${plan.purpose}`,
    '',
    'Steps (where it waits, and what you can decide there):',
    ...plan.steps.map((step, i) => {
      const number = String(i + 1).padStart(3);
      const offers = step.actions ? ` [${step.kind}: ${step.actions.join(' | ')}]` : '';
      const only = step.when ? ` (only ${step.when})` : '';
      const undo = step.undo ? `; undo ${step.undo.name}` : '';
      return `${number}. ${step.name.padEnd(width)}  ${step.does}${only}${offers}${undo}`;
    }),
    'A step whose work fails waits for retry | abort; abort runs the undo steps, last first.',
  ].join('\n');
}

/** The decisions each waiting step of a plan offers: `gate-apply: take | retry | abort`. */
export function decisionsAsText(plan: RunbookPlan): string[] {
  return plan.steps.flatMap((step) => (step.actions ? [`${step.name}: ${step.actions.join(' | ')}`] : []));
}

/** The plan as the Web UI's static details show it: steps, waits, undo steps. */
export function renderPlan(plan: RunbookPlan): string {
  return [
    `### Plan of ${plan.kind}`,
    plan.purpose,
    '',
    ...plan.steps.map(
      (step, i) =>
        `${i + 1}. **${step.name}** (${step.kind}): ${step.does}${step.when ? ` (only ${step.when})` : ''}${waits(step)}${step.undo ? `. Undo **${step.undo.name}**: ${step.undo.does}` : ''}`,
    ),
    '',
    'Every wait lasts as long as it takes and reminds the operators; a step whose activity fails waits for retry or abort. Abort runs the undo steps, last first.',
  ].join('\n');
}
