import type { Context } from '@temporalio/activity';
import { workStalledSignal, type WorkStalled } from '../workflows/contracts';

/** The default of `policy.stalledAfter`: a long activity whose progress stands still this long is stalled. */
export const STALLED_AFTER_MS = 10 * 60_000;

/** Fields of progress details that are rates, not work done: they change while nothing moves. */
const RATE = /PerSecond$/;

/**
 * Where an activity's progress stands, from the details it heartbeats: its counts of work done (files,
 * bytes, paths, entries scanned, and their totals), rates left out. Undefined when the details carry no
 * count (`{scanning: '/srv/forge'}`): such an activity reports no progress, so it is never called stalled.
 */
export function progressPosition(details: unknown): string | undefined {
  if (typeof details !== 'object' || details === null || Array.isArray(details)) return undefined;
  const counts = Object.entries(details).filter(
    ([key, value]) => typeof value === 'number' && !RATE.test(key),
  );
  return counts.length > 0 ? JSON.stringify(counts) : undefined;
}

/** Progress details in words: `120 of 2000 files, 1048576 of 8388608 bytes`, or `2200 entries scanned` while it scans. */
export function progressPhrase(details: unknown): string | undefined {
  if (progressPosition(details) === undefined) return undefined;
  const d = details as Record<string, unknown>;
  const parts: string[] = [];
  const of = (done: unknown, total: unknown, what: string) => {
    if (typeof done !== 'number') return;
    parts.push(typeof total === 'number' ? `${done} of ${total} ${what}` : `${done} ${what}`);
  };
  const scanning = [d.files, d.bytes, d.totalFiles, d.totalBytes, d.done, d.total].every((n) => !n);
  if (scanning && typeof d.scanned === 'number') return `${d.scanned} entries scanned`;
  of(d.files, d.totalFiles, 'files');
  of(d.bytes, d.totalBytes, 'bytes');
  of(d.done, d.total, 'paths');
  return parts.length > 0 ? parts.join(', ') : undefined;
}

/**
 * Watches one activity's progress while the keep-alive beats for it. The keep-alive's beats keep a stuck
 * activity alive for the server, so it is this watch that tells the runbook (a signal to its workflow)
 * when the progress has not moved for `stalledAfterMs`, and again when it moves or the activity ends.
 */
export class StallWatch {
  private position: string | undefined;
  private movedAt = Date.now();
  private details: unknown;
  private reported = false;
  private telling: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: Context,
    private readonly stalledAfterMs: number,
    initial: unknown,
  ) {
    this.details = initial;
    this.position = progressPosition(initial);
  }

  /** Details the activity (or the keep-alive for it) heartbeats. */
  sent(details: unknown): void {
    this.details = details;
    const position = progressPosition(details);
    if (position === this.position) return;
    this.position = position;
    this.movedAt = Date.now();
    if (this.reported) this.tell(false);
  }

  /** Called with each keep-alive beat: tells the runbook once the progress stood still long enough. */
  check(now = Date.now()): void {
    if (this.reported || this.position === undefined) return;
    if (now - this.movedAt >= this.stalledAfterMs) this.tell(true);
  }

  /** The activity ended: a stall it was shown with ends with it. */
  async end(): Promise<void> {
    if (this.reported) this.tell(false);
    await this.telling;
  }

  private tell(stalled: boolean): void {
    this.reported = stalled;
    const { info } = this.ctx;
    const report: WorkStalled = {
      activity: info.activityType,
      activityId: info.activityId,
      taskQueue: info.taskQueue,
      stalled,
      since: new Date(this.movedAt).toISOString(),
      stalledAfterMs: this.stalledAfterMs,
      ...optional('progress', progressPhrase(this.details)),
    };
    const run = info.workflowExecution;
    if (!run) return; // a standalone activity: no runbook to tell
    this.telling = this.telling.then(async () => {
      try {
        await this.ctx.client.workflow.getHandle(run.workflowId, run.runId).signal(workStalledSignal, report);
      } catch (error) {
        // A runbook that ended meanwhile, or no client (a test's mock environment): nobody to tell.
        this.ctx.log.warn('could not tell the runbook about stalled work', {
          stalled,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    });
  }
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}
