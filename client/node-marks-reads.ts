import { nodeMarkId, type NodeMarkInput } from '../workflows/node-mark-contracts';
import { RESETTER_IDENTITY, type MarkSource } from '../activities/runbook/node-marks';
import type { TemporalReads } from './temporal-reads/reads';
import { RunNotFound } from './temporal-reads/reads';

/** The marks and runs as `mesh runbook status` and `list` read them, without the client SDK. */
export function markSourceOfReads(reads: TemporalReads): MarkSource {
  return {
    async openMark(node) {
      try {
        const described = await reads.describe(nodeMarkId(node));
        if (described.status !== 'RUNNING') return undefined;
        return (await reads.input(described.workflowId, described.runId)) as NodeMarkInput;
      } catch (error) {
        if (error instanceof RunNotFound) return undefined;
        throw error;
      }
    },
    async runState({ workflowId, runId }) {
      let status: string;
      try {
        status = (await reads.describe(workflowId, runId)).status;
      } catch (error) {
        if (error instanceof RunNotFound) return { state: 'gone' };
        throw error;
      }
      if (status === 'RUNNING') return { state: 'running' };
      const ending = await reads.ending(workflowId, runId);
      if (!ending || ending.closed === 'completed') return { state: 'ended', status };
      return {
        state: 'ended',
        status,
        ...(ending.failureType ? { failureType: ending.failureType } : {}),
        ...(ending.message ? { outcome: ending.message } : {}),
      };
    },
    async resetInto({ workflowId, runId }) {
      const { resetRunId } = await reads.describe(workflowId, runId);
      if (!resetRunId) return undefined;
      const by = await reads.terminatedBy(workflowId, runId);
      return by === RESETTER_IDENTITY ? resetRunId : undefined;
    },
  };
}
