import type { Step } from '../../workflows/contracts';
import type { ActivitySpan, Span } from './history-facts';

/** One step's last run: its wall time, the time inside its activities, and what is left (the overhead). */
export interface StepTiming {
  step: string;
  wallMs: number;
  activityMs: number;
  /** Part of the overhead: durable timers (rechecks, probe retries) that fired inside the step. */
  timerMs: number;
  overheadMs: number;
}

/** How the overhead is attributed; printed with the figures. */
export const ATTRIBUTION =
  "a step's wall time is its last run in the runbook status (startedAt to endedAt, workflow time); its activities " +
  'are those whose summary names the step (the workflow interceptor prefixes every summary with it) and whose ' +
  'last attempt started inside that run, each counted from ActivityTaskStarted to its closing event; overhead = ' +
  'wall - union of those activity spans. Approvals (no startedAt: they only wait) and skipped steps are left out.';

function clip(span: Span, within: Span): Span | undefined {
  const from = Math.max(span.from, within.from);
  const to = Math.min(span.to, within.to);
  return to > from ? { from, to } : undefined;
}

/** Total length of the union of spans. */
export function unionMs(spans: readonly Span[]): number {
  const sorted = [...spans].sort((a, b) => a.from - b.from);
  let total = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const { from, to } of sorted) {
    if (to <= end) continue;
    total += to - Math.max(from, end);
    end = to;
  }
  return total;
}

/** Per-step timings of a finished runbook, from its status and its history's activities and timers. */
export function stepTimings(
  steps: readonly Step[],
  activities: readonly ActivitySpan[],
  timers: readonly Span[],
): StepTiming[] {
  return steps.flatMap((step) => {
    if (!step.startedAt || !step.endedAt || step.state === 'skipped') return [];
    const run = { from: Date.parse(step.startedAt), to: Date.parse(step.endedAt) };
    const inside = (spans: readonly Span[]) => spans.flatMap((span) => clip(span, run) ?? []);
    const own = activities.filter((a) => a.step === step.name && a.from >= run.from && a.from <= run.to);
    const wallMs = run.to - run.from;
    const activityMs = unionMs(inside(own));
    return [
      {
        step: step.name,
        wallMs,
        activityMs,
        timerMs: unionMs(inside(timers)),
        overheadMs: wallMs - activityMs,
      },
    ];
  });
}
