import type {
  Phase,
  Paused,
  RecordedDecision,
  RefusedDecision,
  RunbookKind,
  RunbookStatus,
  Stalled,
  Step,
  StepRun,
  StepState,
  Waiting,
  WorkStalled,
} from '../contracts';
import { logContext } from '../interceptors';
import { evidenceHash } from './evidence';
import { stalledNote } from './stalled-words';

export type WaitingRequest = Pick<Waiting, 'gate' | 'verdict' | 'reason' | 'actions'> & { facts?: string[] };

const ENDED: ReadonlySet<StepState> = new Set(['done', 'failed', 'skipped', 'compensated']);

function runOf({ state, startedAt, endedAt, note }: Step): StepRun {
  return {
    state,
    ...(startedAt !== undefined ? { startedAt } : {}),
    ...(endedAt !== undefined ? { endedAt } : {}),
    ...(note !== undefined ? { note } : {}),
  };
}

/**
 * The runbook's live status: the plan's steps with their states and times, what it waits on, decisions.
 * Every change is handed to `publish` (current details and search attributes for the Web UI).
 */
export class Progress {
  readonly status: RunbookStatus;
  private publish: (status: RunbookStatus) => void = () => undefined;
  /** The note of the step a stall is shown at, as it was before: given back when the work moves again. */
  private noteBeforeStall: string | undefined;
  private readonly planned: ReadonlySet<string>;
  /** Steps the plan does not list, in the order they first appeared. */
  private readonly unplanned: string[] = [];

  /** `carried`: the status a run continued as new from (a fleet past its history bound) goes on from there. */
  constructor(
    identity: { id: string; kind: RunbookKind; node: string; module: string; startedBy: string },
    plan: readonly string[],
    carried?: RunbookStatus,
  ) {
    this.planned = new Set(plan);
    this.status = carried ?? {
      ...identity,
      phase: 'running',
      waiting: null,
      steps: plan.map((name) => ({ name, state: 'pending' })),
      decisions: [],
      refused: [],
    };
    this.unplanned.push(...this.status.steps.map((s) => s.name).filter((name) => !this.planned.has(name)));
    logContext.node = identity.node;
    logContext.module = identity.module;
  }

  /** Who started it, proven by their key: kept in the status, published with its next change. */
  proveStarter(signer: NonNullable<RunbookStatus['startSigner']>): void {
    this.status.startSigner = signer;
  }

  onChange(publish: (status: RunbookStatus) => void): void {
    this.publish = publish;
    publish(this.status);
  }

  private changed(): void {
    this.publish(this.status);
  }

  /** A step the plan does not list (catch-up, recreate, an undo) goes where it began: see afterLastBegun. */
  private step(name: string): Step {
    let step = this.status.steps.find((candidate) => candidate.name === name);
    if (!step) {
      step = { name, state: 'pending' };
      this.status.steps.splice(this.afterLastBegun(), 0, step);
      this.unplanned.push(name);
    }
    return step;
  }

  /** After the step whose first run began last: a step run again (stop-containers for a catch-up) keeps its place. */
  private afterLastBegun(): number {
    let at = this.status.steps.length;
    let latest = '';
    this.status.steps.forEach((step, index) => {
      const began = step.earlier?.[0]?.startedAt ?? step.startedAt;
      if (began !== undefined && began >= latest) {
        latest = began;
        at = index + 1;
      }
    });
    return at;
  }

  mark(name: string, state: StepState, note?: string): void {
    const step = this.step(name);
    const now = new Date().toISOString();
    if (state === 'running' && step.state !== 'running') {
      // A step that runs again after it ended (push after take or recreate) keeps its earlier runs.
      if (ENDED.has(step.state)) step.earlier = [...(step.earlier ?? []), runOf(step)];
      step.startedAt = now;
      delete step.endedAt;
    }
    if (ENDED.has(state)) step.endedAt = now;
    step.state = state;
    if (note !== undefined) step.note = note;
    // The stalled work was the step's: it ended with the step, and the stall's note with it.
    if (state !== 'running' && this.status.stalled?.step === name) {
      this.status.stalled = null;
      if (note === undefined) this.restoreNote(step);
    }
    if (state === 'running' || state === 'waiting') logContext.step = name;
    this.changed();
  }

  /** What an approval shows: the evidence every finished step gathered. */
  evidenceSoFar(): string[] {
    // In the order evidence hashes were made with before unplanned steps were shown where they ran.
    const planned = this.status.steps.filter((step) => this.planned.has(step.name));
    const unplanned = this.unplanned.flatMap((name) =>
      this.status.steps.filter((step) => step.name === name),
    );
    return [...planned, ...unplanned]
      .filter((step) => step.state === 'done' && step.note !== undefined)
      .map((step) => `${step.name}: ${step.note}`);
  }

  waitFor(request: WaitingRequest): Waiting {
    const facts = request.facts ?? this.evidenceSoFar();
    const base = {
      gate: request.gate,
      verdict: request.verdict,
      reason: request.reason,
      actions: request.actions,
    };
    const waiting: Waiting = {
      ...base,
      facts,
      evidence: evidenceHash({ ...base, facts }),
      since: new Date().toISOString(),
      reminders: 0,
    };
    this.status.waiting = waiting;
    this.status.phase = 'waiting';
    this.mark(request.gate, 'waiting');
    return waiting;
  }

  reminded(where: string): void {
    if (!this.status.waiting) return;
    this.status.waiting.reminders += 1;
    this.status.waiting.lastReminder = where;
    this.changed();
  }

  /**
   * Shows a long activity as stalled at the step that runs now (the last running one); false, showing
   * nothing, when no step runs (a report that arrived after its step ended).
   */
  stall(report: WorkStalled): boolean {
    const step = this.status.steps
      .filter((candidate) => candidate.state === 'running')
      .reduce<Step | undefined>(
        (last, next) => ((next.startedAt ?? '') >= (last?.startedAt ?? '') ? next : last),
        undefined,
      );
    if (!step) return false;
    if (this.status.stalled?.step !== step.name) this.noteBeforeStall = step.note;
    const { stalled: _, ...what } = report;
    const stalled: Stalled = { ...what, step: step.name };
    this.status.stalled = stalled;
    step.note = stalledNote(stalled);
    this.changed();
    return true;
  }

  /** The stalled activity moves again (or ended): its step shows its own note again. */
  unstall(activityId: string): void {
    const stalled = this.status.stalled;
    if (!stalled || stalled.activityId !== activityId) return;
    this.status.stalled = null;
    const step = this.status.steps.find((candidate) => candidate.name === stalled.step);
    if (step?.state === 'running') this.restoreNote(step);
    this.changed();
  }

  private restoreNote(step: Step): void {
    if (this.noteBeforeStall === undefined) delete step.note;
    else step.note = this.noteBeforeStall;
  }

  refuse(refused: RefusedDecision): void {
    this.status.refused.push(refused);
    this.changed();
  }

  resume(decision: RecordedDecision): void {
    this.status.decisions.push(decision);
    this.status.waiting = null;
    this.status.phase = 'running';
    this.changed();
  }

  pause(paused: Paused): void {
    this.status.paused = paused;
    this.changed();
  }

  /** The pause now holds at the boundary before `next`. */
  holdPaused(next: string): void {
    if (this.status.paused) this.status.paused = { ...this.status.paused, holdsBefore: next };
    this.changed();
  }

  /** Ends the pause (who resumed it is the resume Update's input, in the history); resolves to it. */
  resumeFromPause(): Paused {
    const ended = this.status.paused as Paused;
    this.status.paused = null;
    this.changed();
    return ended;
  }

  /** A decision taken elsewhere that stands for one here (a fleet's approval), on record as if sent here. */
  recordDecision(decision: RecordedDecision): void {
    this.status.decisions.push(decision);
    this.changed();
  }

  /** Leaves a wait that ended without a decision (a cancellation): from now on no decision fits. */
  leaveWait(): void {
    this.status.waiting = null;
    if (this.status.phase === 'waiting') this.status.phase = 'running';
    this.changed();
  }

  end(phase: Exclude<Phase, 'running' | 'waiting'>, outcome?: string): void {
    this.status.phase = phase;
    this.status.waiting = null;
    // A pause asked after the last boundary held nothing; the ended runbook is not paused.
    if (this.status.paused) this.status.paused = null;
    if (outcome !== undefined) this.status.outcome = outcome;
    this.changed();
  }
}
