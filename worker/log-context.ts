import { defaultPayloadConverter, type Headers } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { CONTEXT_HEADERS } from '../workflows/interceptors';

/** The SDK's first line about an activity; it comes before the headers are read (see log-bridge.ts). */
export const SDK_ACTIVITY_STARTED = 'Activity started';

export type RunbookLogContext = Partial<Record<keyof typeof CONTEXT_HEADERS, string>>;

/** Node, module and step from an activity's headers; a missing or unreadable header is left out. */
export function contextFromHeaders(headers: Headers): RunbookLogContext {
  const context: RunbookLogContext = {};
  for (const key of Object.keys(CONTEXT_HEADERS) as (keyof typeof CONTEXT_HEADERS)[]) {
    const payload = headers[CONTEXT_HEADERS[key]];
    if (!payload) continue;
    try {
      const value: unknown = defaultPayloadConverter.fromPayload(payload);
      if (typeof value === 'string') context[key] = value;
    } catch {
      // A log field is not worth failing the activity for.
    }
  }
  return context;
}

/**
 * Every line about an activity (its own `log` calls and the SDK's) carries the runbook's node, module and
 * step, from the headers workflows/interceptors.ts puts on every activity a runbook schedules. The SDK's
 * "Activity started" is logged before this interceptor sees the headers, so it logs that line again.
 */
export const runbookLogContext: ActivityInterceptorsFactory = (ctx) => {
  let context: RunbookLogContext = {};
  return {
    inbound: {
      execute: (input, next) => {
        context = contextFromHeaders(input.headers);
        ctx.log.debug(SDK_ACTIVITY_STARTED);
        return next(input);
      },
    },
    outbound: {
      getLogAttributes: (attributes, next) => next({ ...attributes, ...context }),
    },
  };
};
