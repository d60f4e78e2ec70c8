import { ApplicationFailure, deprecatePatch, isCancellation } from '@temporalio/workflow';
import { FAILURE, type RunbookStatus } from '../contracts';
import type { Compensations } from './compensation';
import type { Progress } from './progress';
import { failureMessage, isRefusal, refuse } from './failures';
import { STATUS_IN_FAILURE } from './revision';

/**
 * Runs the compensations and ends the runbook in the phase that says what happened; returns what to throw:
 * a failure carrying the final status, so `mesh runbook status` reads it without a worker replaying the run.
 */
export async function finish(error: unknown, progress: Progress, undo: Compensations): Promise<unknown> {
  const ending = await end(error, progress, undo);
  if (!(ending instanceof ApplicationFailure)) return ending;
  deprecatePatch(STATUS_IN_FAILURE);
  return withStatus(ending, progress.status);
}

function withStatus(failure: ApplicationFailure, status: RunbookStatus): ApplicationFailure {
  return ApplicationFailure.create({
    message: failure.message,
    type: failure.type ?? undefined,
    nonRetryable: true,
    details: [status],
    cause: failure.cause,
  });
}

async function end(error: unknown, progress: Progress, undo: Compensations): Promise<unknown> {
  const cause = failureMessage(error);
  const aborted =
    isCancellation(error) || (error instanceof ApplicationFailure && error.type === FAILURE.aborted);
  const preflight = isRefusal(error);
  const undid = undo.pending;
  // A cancellation can end a wait: the runbook compensates now and must refuse decisions for that gate.
  progress.leaveWait();
  const failures = await undo.unwind();
  if (failures.length > 0) {
    progress.end('failed', `${cause}; rollback failed: ${failures.join('; ')}`);
    return ApplicationFailure.nonRetryable(progress.status.outcome ?? cause, FAILURE.rollbackFailed);
  }
  if (aborted) {
    progress.end('aborted', isCancellation(error) ? 'aborted (cancelled); compensations ran' : cause);
    return error;
  }
  if (preflight) {
    progress.end('failed', `refused at preflight: ${cause.replace(/\.$/, '')}`);
    return error instanceof ApplicationFailure ? error : refuse(cause);
  }
  if (!undid) {
    progress.end('failed', cause);
    return error instanceof ApplicationFailure
      ? error
      : ApplicationFailure.nonRetryable(cause, FAILURE.verificationFailed);
  }
  progress.end('rolled-back', `${cause}; rolled back`);
  return ApplicationFailure.nonRetryable(`${cause}; rolled back`, FAILURE.rolledBack);
}
