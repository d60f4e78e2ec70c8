import { z } from 'zod';
import type { WebhookConfig } from '../../config/webhook';

/** What a reminder says: which runbook waits where, for what, since when and how often it was reminded. */
export const Reminder = z.object({
  runbookId: z.string(),
  gate: z.string(),
  sentence: z.string(),
  actions: z.array(z.string()),
  evidence: z.string(),
  waitingSince: z.string(),
  reminder: z.number().int().positive(),
});
export type Reminder = z.infer<typeof Reminder>;

export interface Notifier {
  /** Where reminders go, as workflow history keeps it: never with a path, query, header or credentials. */
  readonly describe: string;
  send(reminder: Reminder): Promise<void>;
}

/**
 * POSTs each reminder as JSON; a status other than 2xx is an error the activity retries. The webhook is
 * named by its origin alone, in the result and in every failure (both enter workflow history): a path or
 * query often is the token (a chat service's incoming-webhook URL), and headers carry the rest.
 */
export function webhookNotifier(config: WebhookConfig): Notifier {
  const { origin } = new URL(config.url);
  return {
    describe: `webhook ${origin}`,
    async send(reminder) {
      let response: Response;
      try {
        response = await fetch(config.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...config.headers },
          body: JSON.stringify(reminder),
          signal: AbortSignal.timeout(config.timeoutMs),
        });
      } catch (error) {
        throw new Error(`the webhook at ${origin} could not be reached (${networkProblem(error)})`);
      }
      await response.body?.cancel();
      if (!response.ok) throw new Error(`the webhook at ${origin} answered ${response.status}`);
    },
  };
}

/** What went wrong on the way, by its code (ECONNREFUSED, a timeout), without fetch's own wording of the URL. */
function networkProblem(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'timed out';
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return typeof cause?.code === 'string' ? cause.code : 'network error';
}
