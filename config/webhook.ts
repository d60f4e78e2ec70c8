import { z } from 'zod';

/** Where reminders are POSTed (`notifier.webhook` in the config file). */
export const WebhookConfig = z.object({
  url: z.url({ protocol: /^https?$/ }),
  /** Extra headers (an Authorization token, say): config only, redacted by `mesh config`. */
  headers: z.record(z.string(), z.string()).default({}),
  timeoutMs: z.number().int().positive().default(10_000),
});
export type WebhookConfig = z.infer<typeof WebhookConfig>;
