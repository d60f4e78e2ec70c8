import { CancellationScope, log } from '@temporalio/workflow';
import type { Progress } from './progress';

interface Compensation {
  step: string;
  undo: () => Promise<void>;
}

/** Undo work in reverse order: each side effect registers its named, idempotent inverse before it runs. */
export class Compensations {
  private readonly stack: Compensation[] = [];

  constructor(private readonly progress: Progress) {}

  push(step: string, undo: () => Promise<void>): void {
    this.stack.push({ step, undo });
  }

  /** Drops inverses that no longer apply (work past a point of no return is undone differently). */
  forget(...steps: string[]): void {
    for (let i = this.stack.length - 1; i >= 0; i--) {
      if (steps.includes(this.stack[i]?.step ?? '')) this.stack.splice(i, 1);
    }
  }

  get pending(): boolean {
    return this.stack.length > 0;
  }

  /** Runs every registered inverse, last first, shielded from the cancellation that may have caused it. */
  async unwind(): Promise<string[]> {
    const failures: string[] = [];
    await CancellationScope.nonCancellable(async () => {
      for (let entry = this.stack.pop(); entry; entry = this.stack.pop()) {
        this.progress.mark(entry.step, 'running');
        try {
          await entry.undo();
          this.progress.mark(entry.step, 'compensated');
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          log.error('compensation failed', { step: entry.step, error: message });
          this.progress.mark(entry.step, 'failed', message);
          failures.push(`${entry.step}: ${message}`);
        }
      }
    });
    return failures;
  }
}
