import type { MeshPort } from './port';
import type { ApplyReport } from './schemas';

export class ApplyReportTimeoutError extends Error {
  override readonly name = 'ApplyReportTimeoutError';
}

export interface WaitOptions {
  timeoutMs: number;
  /** Without a watch: the longest pause between looks (they start at 25 ms and double). */
  pollMs?: number;
  signal?: AbortSignal;
  /** Called after each look that found no report yet (e.g. to heartbeat). */
  onPoll?: () => void;
}

/**
 * Waits for the report of exactly this push; an older push's report never satisfies it. With an adapter that
 * can watch its reports it looks again the moment the node writes; otherwise it looks on a short backoff.
 */
export async function waitForApplyReport(
  mesh: MeshPort,
  node: string,
  pushId: string,
  { timeoutMs, pollMs = 500, signal, onPoll }: WaitOptions,
): Promise<ApplyReport> {
  const deadline = Date.now() + timeoutMs;
  let wake: () => void = () => undefined;
  let changed = false;
  const unwatch = mesh.watchReports?.(node, () => {
    changed = true;
    wake();
  });
  try {
    for (let pause = 25; ; pause = Math.min(pause * 2, pollMs)) {
      signal?.throwIfAborted();
      changed = false;
      const report = await mesh.applyReport(node, pushId);
      if (report) return report;
      onPoll?.();
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new ApplyReportTimeoutError(
          `node ${node} has not reported applying push ${pushId} after ${timeoutMs} ms`,
        );
      }
      // Watching: the next change wakes it, with a slow look now and then in case an event was missed.
      const wait = unwatch ? Math.min(left, 2_000) : Math.min(left, pause);
      if (!changed) await nextChange(wait, (resolve) => (wake = resolve), signal);
    }
  } finally {
    unwatch?.();
  }
}

function nextChange(ms: number, arm: (resolve: () => void) => void, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    arm(done);
    signal?.addEventListener('abort', done);
  });
}
