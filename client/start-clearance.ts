import type { Client, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { clearNode, ClearNodeInput } from '../workflows/clear-node';
import { runbookWorkflowId } from '../workflows/contracts';
import { RUNBOOK_REVISION } from '../workflows/runbook/revision';
import { MESH_KIND, MESH_NODE, MESH_REVISION } from '../workflows/search-attributes';
import { CLEARANCE_KIND } from '../workflows/clearance-names';

const SUMMARY_REASON_CHARS = 160;

/**
 * Starts a node's clearance under the node's runbook id, so it never runs beside a runbook there (a running
 * one makes Temporal refuse it: WorkflowExecutionAlreadyStartedError), listed with the node's runbooks.
 */
export function startClearance(
  client: Client,
  workflow: typeof clearNode,
  input: ClearNodeInput,
  options: { taskQueue: string },
): Promise<WorkflowHandleWithFirstExecutionRunId<typeof clearNode>> {
  const reason =
    input.reason.length > SUMMARY_REASON_CHARS
      ? `${input.reason.slice(0, SUMMARY_REASON_CHARS)}…`
      : input.reason;
  return client.workflow.start(workflow, {
    args: [input],
    taskQueue: options.taskQueue,
    workflowId: runbookWorkflowId(input.node),
    workflowIdConflictPolicy: 'FAIL',
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    staticSummary: `clearance of ${input.node} by ${input.by}: ${reason}`,
    typedSearchAttributes: [
      { key: MESH_NODE, value: input.node },
      { key: MESH_KIND, value: CLEARANCE_KIND },
      { key: MESH_REVISION, value: RUNBOOK_REVISION },
    ],
  });
}
