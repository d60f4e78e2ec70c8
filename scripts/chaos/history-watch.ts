import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/**
 * Calls `onEvent` for each event of the runbook's history as the server records it (a long poll, no
 * sampling), until the runbook closes, `onEvent` returns true, or `stopped()` says so. A failed poll (the
 * server restarting) is retried.
 */
export async function watchHistory(
  client: Client,
  workflowId: string,
  onEvent: (event: HistoryEvent) => boolean | Promise<boolean>,
  stopped: () => boolean,
): Promise<void> {
  let nextPageToken: Uint8Array | undefined;
  while (!stopped()) {
    const page = await client.workflowService
      .getWorkflowExecutionHistory({
        namespace: client.options.namespace,
        execution: { workflowId },
        waitNewEvent: true,
        skipArchival: true,
        ...(nextPageToken ? { nextPageToken } : {}),
      })
      .catch(() => undefined);
    if (!page) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      continue;
    }
    for (const event of page.history?.events ?? []) if (await onEvent(event)) return;
    if (!page.nextPageToken || page.nextPageToken.length === 0) return;
    nextPageToken = page.nextPageToken;
  }
}

/** The activity types a history scheduled, in order, each with its occurrence (`pushNode#2`). */
export function scheduledInOrder(events: HistoryEvent[]): { activity: string; occurrence: number }[] {
  const seen: Record<string, number> = {};
  return events.flatMap((event) => {
    const activity = event.activityTaskScheduledEventAttributes?.activityType?.name;
    if (!activity) return [];
    seen[activity] = (seen[activity] ?? 0) + 1;
    return [{ activity, occurrence: seen[activity] }];
  });
}
