import { CancellationScope, log } from '@temporalio/workflow';
import type { Decisions } from './decisions';
import { failureMessage } from './failures';
import type { Progress } from './progress';

interface Compensation {
  step: string;
  /** Resolves to a note for the step when it has one to say (what it left alone). */
  undo: () => Promise<string | void>;
}

/** Undo work in reverse order: each side effect registers its named, idempotent inverse before it runs. */
export class Compensations {
  private readonly stack: Compensation[] = [];

  /** `decisions`: a failed undo waits for the operator (retry or give-up). */
  constructor(
    private readonly progress: Progress,
    private readonly decisions: Decisions,
  ) {}

  push(step: string, undo: () => Promise<string | void>): void {
    this.stack.push({ step, undo });
  }

  /** Drops inverses that no longer apply (work past a point of no return is undone differently). */
  forget(...steps: string[]): void {
    for (let i = this.stack.length - 1; i >= 0; i--) {
      if (steps.includes(this.stack[i]?.step ?? '')) this.stack.splice(i, 1);
    }
  }

  /** Moves an inverse to the bottom of the stack: it runs after every other one (it must wait for something). */
  runLast(step: string): void {
    const at = this.stack.findIndex((entry) => entry.step === step);
    if (at >= 0) this.stack.unshift(...this.stack.splice(at, 1));
  }

  /** Undo steps run: from then on nothing holds the runbook (an abort or rollback always finishes). */
  unwinding = false;

  get pending(): boolean {
    return this.stack.length > 0;
  }

  /** Runs every registered inverse, last first, shielded from the cancellation that may have caused it. */
  async unwind(): Promise<string[]> {
    const failures: string[] = [];
    this.unwinding = true;
    await CancellationScope.nonCancellable(async () => {
      for (let entry = this.stack.pop(); entry; entry = this.stack.pop()) {
        const failure = await this.undoOne(entry);
        if (failure) failures.push(`${entry.step}: ${failure}`);
      }
    });
    return failures;
  }

  /** Runs one undo until it succeeds or, asked, the operator gives it up; returns why it stayed undone. */
  private async undoOne(entry: Compensation): Promise<string | undefined> {
    for (;;) {
      this.progress.mark(entry.step, 'running');
      try {
        const note = await entry.undo();
        this.progress.mark(entry.step, 'compensated', note || undefined);
        return undefined;
      } catch (error) {
        const message = failureMessage(error);
        log.error('compensation failed', { step: entry.step, error: message });
        const decision = await this.decisions.await({
          gate: entry.step,
          verdict: 'failed',
          reason: `Undo step ${entry.step} failed: ${message.replace(/\.?$/, '')}; retry runs it again, give-up leaves it undone and ends the runbook with its rollback failed.`,
          actions: ['retry', 'give-up'],
          facts: [message],
        });
        if (decision.action === 'retry') continue;
        this.progress.mark(entry.step, 'failed', message);
        return message;
      }
    }
  }
}
