import type {
  Phase,
  RecordedDecision,
  RunbookKind,
  RunbookStatus,
  Step,
  StepState,
  Waiting,
} from '../contracts';

/** The runbook's live status: the plan's steps with their states and times, what it waits on, decisions. */
export class Progress {
  readonly status: RunbookStatus;

  constructor(
    identity: { id: string; kind: RunbookKind; node: string; module: string; startedBy: string },
    plan: readonly string[],
  ) {
    this.status = {
      ...identity,
      phase: 'running',
      waiting: null,
      steps: plan.map((name) => ({ name, state: 'pending' })),
      decisions: [],
    };
  }

  private step(name: string): Step {
    let step = this.status.steps.find((candidate) => candidate.name === name);
    if (!step) {
      step = { name, state: 'pending' };
      this.status.steps.push(step);
    }
    return step;
  }

  mark(name: string, state: StepState, note?: string): void {
    const step = this.step(name);
    const now = new Date().toISOString();
    if (state === 'running' && step.startedAt === undefined) step.startedAt = now;
    if (state === 'done' || state === 'failed' || state === 'skipped' || state === 'compensated')
      step.endedAt = now;
    step.state = state;
    if (note !== undefined) step.note = note;
  }

  waitFor(waiting: Omit<Waiting, 'since'>): Waiting {
    const full = { ...waiting, since: new Date().toISOString() };
    this.status.waiting = full;
    this.status.phase = 'waiting';
    this.mark(waiting.gate, 'waiting');
    return full;
  }

  resume(decision: RecordedDecision): void {
    this.status.decisions.push(decision);
    this.status.waiting = null;
    this.status.phase = 'running';
  }

  /** Leaves a wait that ended without a decision (a cancellation): from now on no decision fits. */
  leaveWait(): void {
    this.status.waiting = null;
    if (this.status.phase === 'waiting') this.status.phase = 'running';
  }

  end(phase: Exclude<Phase, 'running' | 'waiting'>, outcome?: string): void {
    this.status.phase = phase;
    this.status.waiting = null;
    if (outcome !== undefined) this.status.outcome = outcome;
  }
}
