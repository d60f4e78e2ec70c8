import { defaultPayloadConverter } from '@temporalio/common';
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';

/** The runbook's node, module and current step, set as the runbook goes; read by logs and activities. */
export const logContext: { node?: string; module?: string; step?: string } = {};

export const CONTEXT_HEADERS = { node: 'mesh-node', module: 'mesh-module', step: 'mesh-step' } as const;

function contextHeaders() {
  const headers: Record<string, ReturnType<typeof defaultPayloadConverter.toPayload>> = {};
  for (const key of ['node', 'module', 'step'] as const) {
    const value = logContext[key];
    if (value !== undefined) headers[CONTEXT_HEADERS[key]] = defaultPayloadConverter.toPayload(value);
  }
  return headers;
}

/** What the Web UI shows for an activity in the timeline: the step it serves and what it does. */
function activitySummary(activityType: string): string {
  const words = activityType.replace(/([A-Z])/g, ' $1').toLowerCase();
  return `${logContext.step ?? 'start'}: ${words} on ${logContext.node ?? '?'}`;
}

/** Every workflow log line and every activity the runbook schedules carries node, module and step. */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  outbound: [
    {
      scheduleActivity: (input, next) =>
        next({
          ...input,
          headers: { ...input.headers, ...contextHeaders() },
          options: {
            ...input.options,
            summary: input.options.summary ?? activitySummary(input.activityType),
          },
        }),
      scheduleLocalActivity: (input, next) =>
        next({ ...input, headers: { ...input.headers, ...contextHeaders() } }),
      getLogAttributes: (input, next) => next({ ...input, ...logContext }),
    },
  ],
});
