/** The WorkflowService calls the reads make: the cut of the API (scripts/temporal-api-subset.ts) holds these. */
export const CALLS = [
  'DescribeWorkflowExecution',
  'DescribeTaskQueue',
  'QueryWorkflow',
  'GetWorkflowExecutionHistory',
  'ListWorkflowExecutions',
] as const;
export type CallName = (typeof CALLS)[number];

export const SERVICE_PACKAGE = 'temporal.api.workflowservice.v1';
