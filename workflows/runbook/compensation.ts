import { CancellationScope, log, patched } from '@temporalio/workflow';
import type { Decisions } from './decisions';
import { failureMessage } from './failures';
import type { Progress } from './progress';
import { GIVE_UP_ENDS_UNWIND } from './revision';

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

  /**
   * Runs every registered inverse, last first, shielded from the cancellation that may have caused it.
   * A give-up ends the unwind (GIVE_UP_ENDS_UNWIND): the undo steps after it would act on a node that is
   * not as they expect (a predecessor never reassigned), so none of them runs, and each says why.
   */
  async unwind(): Promise<string[]> {
    const failures: string[] = [];
    this.unwinding = true;
    await CancellationScope.nonCancellable(async () => {
      for (let entry = this.stack.pop(); entry; entry = this.stack.pop()) {
        const failure = await this.undoOne(entry);
        if (!failure) continue;
        failures.push(`${entry.step}: ${failure.message}`);
        if (!failure.endsUnwind) continue;
        const left = this.stack.reverse().map((e) => e.step);
        this.stack.length = 0;
        const { node } = this.progress.status;
        const why = `not run: ${failure.by} gave up ${entry.step}, which ends the undo (this step counted on it); look at ${node}, then clear it: mesh runbook clear ${node}`;
        for (const step of left) this.progress.mark(step, 'skipped', why);
        if (left.length > 0) failures.push(`not run after the give-up: ${left.join(', ')}`);
      }
    });
    return failures;
  }

  /** Runs one undo until it succeeds or, asked, the operator gives it up; returns why it stayed undone. */
  private async undoOne(
    entry: Compensation,
  ): Promise<{ message: string; by: string; endsUnwind: boolean } | undefined> {
    for (;;) {
      this.progress.mark(entry.step, 'running');
      try {
        const note = await entry.undo();
        this.progress.mark(entry.step, 'compensated', note || undefined);
        return undefined;
      } catch (error) {
        const message = failureMessage(error);
        log.error('compensation failed', { step: entry.step, error: message });
        // Only a give-up with undo steps left to skip behaves differently: asked then, so runbooks recorded
        // before (which went on with the next undo step) replay without the marker.
        const endsUnwind = this.stack.length > 0 && patched(GIVE_UP_ENDS_UNWIND);
        const left = [...this.stack].reverse().map((e) => e.step);
        const giveUp = endsUnwind
          ? `give-up leaves it undone and ends the undo here (${left.join(', ')} will not run) with the runbook's rollback failed, and the node needing clearing`
          : 'give-up leaves it undone and ends the runbook with its rollback failed';
        const decision = await this.decisions.await({
          gate: entry.step,
          verdict: 'failed',
          reason: `Undo step ${entry.step} failed: ${message.replace(/\.?$/, '')}; retry runs it again, ${giveUp}.`,
          actions: ['retry', 'give-up'],
          facts: [message],
        });
        if (decision.action === 'retry') continue;
        this.progress.mark(entry.step, 'failed', message);
        return { message, by: decision.by, endsUnwind };
      }
    }
  }
}
