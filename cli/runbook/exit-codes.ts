import { FAILURE, type Phase } from '../../workflows/contracts';
import { DETACHED, EXIT } from '../errors';

export { DETACHED };

export const TERMINAL_PHASES: readonly Phase[] = ['completed', 'rolled-back', 'aborted', 'failed'];

export function isTerminal(phase: Phase): boolean {
  return TERMINAL_PHASES.includes(phase);
}

/** The exit code that tells a script where a runbook is: 0 running or completed, 3 waiting, 4, 5. */
export function exitForPhase(phase: Phase): number {
  switch (phase) {
    case 'running':
    case 'completed':
      return EXIT.ok;
    case 'waiting':
      return EXIT.waiting;
    case 'rolled-back':
      return EXIT.rolledBack;
    case 'aborted':
    case 'failed':
      return EXIT.failedOrAborted;
  }
}

/**
 * `abort` succeeded when the runbook ended aborted (its compensations ran); a rollback that failed is
 * `failed` (5), and a runbook that completed before the cancellation reached it is not an abort (1).
 */
export function exitForAbort(phase: Phase): number {
  if (phase === 'aborted') return EXIT.ok;
  if (phase === 'completed') return EXIT.failure;
  return exitForPhase(phase);
}

/** Close statuses as the Temporal client names them (WorkflowExecutionStatusName). */
export type CloseStatus = 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TERMINATED' | 'TIMED_OUT' | string;

/**
 * The phase of a closed run when its status query cannot be asked: from how it closed and, for a failed
 * run, the failure type the runbook threw (contracts FAILURE).
 */
export function phaseOfClosed(closeStatus: CloseStatus, failureType: string | undefined): Phase {
  if (closeStatus === 'COMPLETED') return 'completed';
  if (closeStatus === 'CANCELLED') return 'aborted';
  if (closeStatus === 'FAILED') {
    if (failureType === FAILURE.rolledBack) return 'rolled-back';
    if (failureType === FAILURE.aborted) return 'aborted';
  }
  return 'failed';
}
