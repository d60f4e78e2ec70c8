import type { MeshPort } from './port';
import type { ApplyReport } from './schemas';

export class ApplyReportTimeoutError extends Error {
  override readonly name = 'ApplyReportTimeoutError';
}

export interface WaitOptions {
  timeoutMs: number;
  pollMs?: number;
  signal?: AbortSignal;
  /** Called after each look that found no report yet (e.g. to heartbeat). */
  onPoll?: () => void;
}

/** Waits for the report of exactly this push; an older push's report never satisfies it. */
export async function waitForApplyReport(
  mesh: MeshPort,
  node: string,
  pushId: string,
  { timeoutMs, pollMs = 200, signal, onPoll }: WaitOptions,
): Promise<ApplyReport> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    signal?.throwIfAborted();
    const report = await mesh.applyReport(node, pushId);
    if (report) return report;
    onPoll?.();
    if (Date.now() >= deadline) {
      throw new ApplyReportTimeoutError(
        `node ${node} has not reported applying push ${pushId} after ${timeoutMs} ms`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
