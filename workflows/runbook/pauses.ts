import { condition, setHandler } from '@temporalio/workflow';
import { firstIssue } from '../../base/zod-issue';
import { PauseRequest, pauseUpdate, ResumeRequest, resumeUpdate, type Paused } from '../contracts';
import { clockOf, reject } from './decisions';
import type { Progress } from './progress';

/**
 * Pause and resume at will (the `pause` and `resume` Updates): a pause holds the runbook at its next step
 * boundary, never inside a step, and never at a boundary its plan keeps going through (`hold` is told
 * so); `resume` lets it go on. While it holds, a cancellation (abort) still ends it, its undo steps run.
 */
export class Pauses {
  /** `whyNot`: why no pause can hold now (undo steps run), refused with that sentence. */
  constructor(
    private readonly progress: Progress,
    whyNot: () => string | undefined = () => undefined,
  ) {
    setHandler(
      pauseUpdate,
      (input) => {
        const request = PauseRequest.parse(input);
        const paused: Paused = { ...request, at: new Date().toISOString() };
        this.progress.pause(paused);
        return paused;
      },
      {
        validator: (input) => {
          const parsed = PauseRequest.safeParse(input);
          if (!parsed.success) reject(`The pause is malformed: ${firstIssue(parsed.error).problem}.`);
          const now = this.progress.status.paused;
          const refused = whyNot();
          if (refused) reject(refused);
          if (now)
            reject(
              `${this.progress.status.id} is already paused by ${now.by} since ${clockOf(now.at)} (${now.reason}); resume it first.`,
            );
        },
        description: 'Hold at the next step boundary: by (who), reason (why).',
      },
    );
    setHandler(
      resumeUpdate,
      (input) => {
        ResumeRequest.parse(input);
        return this.progress.resumeFromPause();
      },
      {
        validator: (input) => {
          const parsed = ResumeRequest.safeParse(input);
          if (!parsed.success) reject(`The resume is malformed: ${firstIssue(parsed.error).problem}.`);
          if (!this.progress.status.paused) reject(`${this.progress.status.id} is not paused.`);
        },
        description: 'Go on after a pause: by (who).',
      },
    );
  }

  inForce(): boolean {
    return Boolean(this.progress.status.paused);
  }

  /** A step boundary before `next`: holds here until resumed, unless `keepGoing` says why it may not. */
  async hold(next: string, keepGoing?: string): Promise<void> {
    if (!this.inForce() || keepGoing !== undefined) return;
    this.progress.holdPaused(next);
    await condition(() => !this.inForce());
  }
}
