import { WorkflowFailedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import { nodeMarkId, type NodeMarkInput } from '../../workflows/node-mark-contracts';
import { temporal } from '@temporalio/proto';
import { RESETTER_IDENTITY, type MarkSource } from './node-marks';

const CLOSE_EVENT = temporal.api.enums.v1.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT;

/** The marks and runs as the client SDK reads them (a worker's activities, `start`, `clear`). */
export function markSourceOf(client: Client): MarkSource {
  return {
    async openMark(node) {
      const handle = client.workflow.getHandle(nodeMarkId(node));
      try {
        const described = await handle.describe();
        if (described.status.name !== 'RUNNING') return undefined;
        const history = await client.workflow.getHandle(nodeMarkId(node), described.runId).fetchHistory();
        const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
        return payload ? defaultPayloadConverter.fromPayload<NodeMarkInput>(payload) : undefined;
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return undefined;
        throw error;
      }
    },
    async runState({ workflowId, runId }) {
      const handle = client.workflow.getHandle(workflowId, runId, { followRuns: false });
      let status: string;
      try {
        status = (await handle.describe()).status.name;
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return { state: 'gone' };
        throw error;
      }
      if (status === 'RUNNING') return { state: 'running' };
      if (status === 'COMPLETED') return { state: 'ended', status };
      try {
        await handle.result();
        return { state: 'ended', status };
      } catch (error) {
        const cause = error instanceof WorkflowFailedError ? error.cause : undefined;
        const failureType = cause instanceof ApplicationFailure ? cause.type : undefined;
        return {
          state: 'ended',
          status,
          ...(failureType ? { failureType } : {}),
          ...(cause?.message ? { outcome: cause.message } : {}),
        };
      }
    },
    async resetInto({ workflowId, runId }) {
      const handle = client.workflow.getHandle(workflowId, runId, { followRuns: false });
      const resetRunId = (await handle.describe()).raw.workflowExtendedInfo?.resetRunId;
      if (!resetRunId) return undefined;
      const { history } = await client.workflowService.getWorkflowExecutionHistory({
        namespace: client.options.namespace,
        execution: { workflowId, runId },
        historyEventFilterType: CLOSE_EVENT,
      });
      const terminated = history?.events?.[0]?.workflowExecutionTerminatedEventAttributes;
      return terminated?.identity === RESETTER_IDENTITY ? resetRunId : undefined;
    },
  };
}
