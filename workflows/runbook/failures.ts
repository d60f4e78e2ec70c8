import { ActivityFailure, ApplicationFailure, isCancellation } from '@temporalio/workflow';
import { FAILURE } from '../contracts';

export function failureMessage(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause) return error.cause.message;
  return error instanceof Error ? error.message : String(error);
}

export function abortedBy(by: string, gate: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(`aborted by ${by} at ${gate}`, FAILURE.aborted);
}

/** Thrown inside a step: the step fails and the runbook rolls back at once, without waiting for anyone. */
export function rollBack(why: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(why, FAILURE.verificationFailed);
}

/** A refusal before anything changed: at preflight it ends the runbook (PREFLIGHT_REFUSAL_ENDS). */
export function refuse(why: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(why, FAILURE.preflightFailed);
}

/** A cancellation or an operator's abort: the runbook stops here and its undo steps run. */
export function isAbort(error: unknown): boolean {
  return isCancellation(error) || (error instanceof ApplicationFailure && error.type === FAILURE.aborted);
}

/** An activity's failure of this type (contracts FAILURE). */
export function failedWith(error: unknown, type: string): boolean {
  return (
    error instanceof ActivityFailure && error.cause instanceof ApplicationFailure && error.cause.type === type
  );
}

/** A rollBack from workflow code (an activity's failure arrives wrapped, never as this). */
export function isRollBack(error: unknown): boolean {
  return error instanceof ApplicationFailure && error.type === FAILURE.verificationFailed;
}

/** An activity's failure of this type (its cause, as the workflow receives it). */
export function isFailureOf(error: unknown, type: string): boolean {
  return (
    error instanceof ActivityFailure && error.cause instanceof ApplicationFailure && error.cause.type === type
  );
}

/** A refusal before anything changed, thrown by workflow code (`refuse`) or by a node's activity. */
export function isRefusal(error: unknown): boolean {
  const failure = error instanceof ActivityFailure ? error.cause : error;
  return failure instanceof ApplicationFailure && failure.type === FAILURE.preflightFailed;
}
