import { ActivityFailure, ApplicationFailure, isCancellation } from '@temporalio/workflow';
import { FAILURE } from '../contracts';
import type { Decisions } from './decisions';
import type { Progress } from './progress';

export function failureMessage(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause) return error.cause.message;
  return error instanceof Error ? error.message : String(error);
}

export function abortedBy(by: string, gate: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(`aborted by ${by} at ${gate}`, FAILURE.aborted);
}

/**
 * Runs one named step. A step whose activity fails (after its retries) does not fail the runbook: it waits
 * for `retry` or `abort`, so nothing moves on and nothing fails silently.
 */
export async function step<T>(
  progress: Progress,
  decisions: Decisions,
  name: string,
  run: () => Promise<T>,
  describe?: (result: T) => string,
): Promise<T> {
  for (;;) {
    progress.mark(name, 'running');
    try {
      const result = await run();
      progress.mark(name, 'done', describe?.(result));
      return result;
    } catch (error) {
      if (isCancellation(error)) throw error;
      if (error instanceof ApplicationFailure && error.type === FAILURE.aborted) throw error;
      const reason = `Step ${name} failed: ${failureMessage(error).replace(/\.?$/, '')}; retry runs it again, abort undoes what the runbook did.`;
      const decision = await decisions.await({
        gate: name,
        verdict: 'failed',
        reason,
        actions: ['retry', 'abort'],
        facts: [failureMessage(error)],
      });
      if (decision.action === 'abort') throw abortedBy(decision.by, name);
    }
  }
}
