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
