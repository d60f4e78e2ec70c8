import { getClient } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import { KINDS, lockingWorkflowTypes, type KindRegistry } from '../../workflows/kinds';
import {
  lockHoldQuery,
  lockStateQuery,
  same,
  type FoundHold,
  type LockHold,
  type LockHoldCheck,
  type RunRef,
} from '../../workflows/lock-hold';
import { heartbeat } from '../../base/activity-heartbeat';

/** Half-second looks at a keeper of an older release, which holds a grant only after telling it. */
const GRANT_SETTLES_TRIES = 20;

const quoted = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/**
 * The visibility query for every open run on `taskQueue` that may hold or ask for locks: each kind's
 * runbook and each fleet that holds locks of its own, as the registry says.
 */
export function lockHoldsQuery(taskQueue: string, registry: KindRegistry = KINDS): string {
  const types = lockingWorkflowTypes(registry).map(quoted).join(', ');
  return `ExecutionStatus = 'Running' AND TaskQueue = ${quoted(taskQueue)} AND WorkflowType IN (${types})`;
}

/** What runbooks say about their locks, asked through the worker's own Temporal client (workflows/lock.ts). */
export function createLockHoldActivities(registry: KindRegistry = KINDS) {
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
     * Whether the keeper holds `run`'s request: a grant a runbook is told of counts only when the keeper
     * says so, since anyone may send the signal. A keeper of an older release tells before it holds, so
     * its word is awaited a while; one that has ended holds nothing.
     */
    async lockGrantOf(input: RunRef & { keeper: string }): Promise<boolean> {
      const keeper = getClient().workflow.getHandle(input.keeper);
      for (let tries = 0; ; tries++) {
        try {
          if ((await keeper.query(lockStateQuery)).held.some(same(input))) return true;
        } catch (error) {
          if (error instanceof WorkflowNotFoundError) return false;
          throw error; // Temporal or the keeper's worker did not answer: asked again
        }
        if (tries >= GRANT_SETTLES_TRIES) return false;
        heartbeat();
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    },

    /**
     * Every open runbook on `taskQueue` that holds or asks for locks of `keeper`, for a keeper starting afresh.
     * A runbook that does not answer fails the activity (retried): a keeper that guessed might grant twice.
     */
    async lockHoldsOn(input: { taskQueue: string; keeper: string }): Promise<FoundHold[]> {
      const client = getClient();
      const query = lockHoldsQuery(input.taskQueue, registry);
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
