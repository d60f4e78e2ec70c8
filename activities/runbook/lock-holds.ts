import { getClient } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import {
  LOCKING_WORKFLOW_TYPES,
  lockHoldQuery,
  type FoundHold,
  type LockHold,
  type LockHoldCheck,
  type RunRef,
} from '../../workflows/lock-hold';
import { heartbeat } from '../heartbeat';

const quoted = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** What runbooks say about their locks, asked through the worker's own Temporal client (workflows/lock.ts). */
export function createLockHoldActivities() {
  return {
    /**
     * How a run stands with its locks, in its own words: ended when Temporal says it closed (or forgot it),
     * unknown when it runs but does not answer (the keeper then keeps what it holds).
     */
    async lockHoldOf(run: RunRef): Promise<LockHoldCheck> {
      const handle = getClient().workflow.getHandle(run.workflowId, run.runId);
      try {
        if ((await handle.describe()).status.name !== 'RUNNING') return 'ended';
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return 'ended';
        throw error; // Temporal did not answer: asked again
      }
      try {
        return (await handle.query(lockHoldQuery)).state;
      } catch {
        return 'unknown';
      }
    },

    /**
     * Every open runbook on `taskQueue` that holds or asks for locks of `keeper`, for a keeper starting afresh.
     * A runbook that does not answer fails the activity (retried): a keeper that guessed might grant twice.
     */
    async lockHoldsOn(input: { taskQueue: string; keeper: string }): Promise<FoundHold[]> {
      const client = getClient();
      const types = LOCKING_WORKFLOW_TYPES.map(quoted).join(', ');
      const query = `ExecutionStatus = 'Running' AND TaskQueue = ${quoted(input.taskQueue)} AND WorkflowType IN (${types})`;
      const found: FoundHold[] = [];
      for await (const run of client.workflow.list({ query })) {
        heartbeat();
        let hold: LockHold;
        try {
          hold = await client.workflow.getHandle(run.workflowId, run.runId).query(lockHoldQuery);
        } catch (error) {
          if (error instanceof WorkflowNotFoundError) continue; // it closed meanwhile
          throw error;
        }
        if (hold.keeper !== input.keeper || !hold.request) continue;
        if (hold.state !== 'asking' && hold.state !== 'holding') continue;
        found.push({ state: hold.state, request: hold.request, since: hold.since ?? '' });
      }
      return found;
    },
  };
}
