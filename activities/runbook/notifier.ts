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
  /** Where reminders go, for logs and `mesh config` (never with its secrets). */
  readonly describe: string;
  send(reminder: Reminder): Promise<void>;
}

/** POSTs each reminder as JSON; a status other than 2xx is an error the activity retries. */
export function webhookNotifier(config: WebhookConfig): Notifier {
  const where = new URL(config.url);
  return {
    describe: `webhook ${where.origin}${where.pathname}`,
    async send(reminder) {
      const response = await fetch(config.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...config.headers },
        body: JSON.stringify(reminder),
        signal: AbortSignal.timeout(config.timeoutMs),
      });
      await response.body?.cancel();
      if (!response.ok) throw new Error(`the webhook at ${where.origin} answered ${response.status}`);
    },
  };
}
