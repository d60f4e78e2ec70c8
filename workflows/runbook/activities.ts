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
export const longAct = proxyActivities<Pick<Activities, 'copyTree' | 'verifyTree'>>({
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
