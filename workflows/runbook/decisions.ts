import { ApplicationFailure, condition, setHandler } from '@temporalio/workflow';
import { Decision, decideUpdate, type RecordedDecision, type Waiting } from '../contracts';
import type { Progress } from './progress';

function reject(message: string): never {
  throw ApplicationFailure.nonRetryable(message, 'DecisionRejected');
}

/** Why this decision does not fit what the runbook waits for, or undefined when it fits. */
export function misfit(
  waiting: Waiting | null,
  decision: Decision,
  currentStep: string | undefined,
): string | undefined {
  if (!waiting) return `The runbook is not waiting for a decision (it is at step ${currentStep ?? 'start'}).`;
  if (decision.gate !== undefined && decision.gate !== waiting.gate) {
    return `The runbook is waiting at gate ${waiting.gate}, not ${decision.gate}; send the decision for ${waiting.gate}.`;
  }
  if (!waiting.actions.includes(decision.action)) {
    return `${decision.action} is not an action at gate ${waiting.gate} (${waiting.verdict}); choose one of: ${waiting.actions.join(', ')}.`;
  }
  return undefined;
}

/** Decisions arrive as the `decide` Update; its validator refuses anything the runbook is not waiting for. */
export class Decisions {
  private pending: RecordedDecision | undefined;

  constructor(private readonly progress: Progress) {
    setHandler(
      decideUpdate,
      (input) => {
        const decision = Decision.parse(input);
        const recorded = {
          ...decision,
          gate: this.progress.status.waiting?.gate ?? '',
          at: new Date().toISOString(),
        };
        this.pending = recorded;
        return recorded;
      },
      {
        validator: (input) => {
          const parsed = Decision.safeParse(input);
          if (!parsed.success)
            reject(`The decision is malformed: ${parsed.error.issues[0]?.message ?? 'invalid'}.`);
          const why = misfit(this.progress.status.waiting, parsed.data, this.currentStep());
          if (why) reject(why);
        },
      },
    );
  }

  private currentStep(): string | undefined {
    return this.progress.status.steps.find((step) => step.state === 'running')?.name;
  }

  /** Waits, as long as it takes, for a decision at this gate. Never times out into progress. */
  async await(waiting: Omit<Waiting, 'since'>): Promise<RecordedDecision> {
    this.progress.waitFor(waiting);
    this.pending = undefined;
    await condition(() => this.pending !== undefined);
    const decision = this.pending as unknown as RecordedDecision;
    this.pending = undefined;
    this.progress.resume(decision);
    return decision;
  }
}
