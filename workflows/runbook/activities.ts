import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities';

/** Timeouts and retries for every runbook's activities, set here once. */
export const act = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    maximumAttempts: 3,
  },
});

/**
 * Copying and checksumming data take as long as the data is large: no overall deadline, a short heartbeat
 * timeout instead, so a dead worker is noticed in seconds and the retry resumes from the last heartbeat.
 */
export const longAct = proxyActivities<Pick<Activities, 'copyTree' | 'verifyTree' | 'catchUpCopy'>>({
  startToCloseTimeout: '24 hours',
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 10,
  },
});

/** A reminder must not hold up a decision that arrives meanwhile for long: short deadline, two tries. */
export const notify = proxyActivities<Pick<Activities, 'remindOperators'>>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 2 },
});

/**
 * Undo steps run when something already went wrong: they try patiently (about six minutes of backoff), then
 * wait for the operator (retry or give-up) instead of failing the rollback in seconds.
 */
export const undoAct = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 10,
  },
});
