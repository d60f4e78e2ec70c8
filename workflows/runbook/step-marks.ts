import type { Step, StepState } from '../contracts';

/**
 * What both step renderers show, the Web UI's details (workflow code) and the CLI's terminal lists: one
 * mark per step state, in glyphs every font has, and one way to write a duration.
 * Bundle-safe: no Node built-ins, no clock of its own.
 */
export const STEP_MARK: Record<StepState, string> = {
  pending: '○',
  running: '◐',
  waiting: '‖',
  done: '✔',
  skipped: '–',
  failed: '✘',
  compensated: '↺',
};

/** How long something took: tenths under 10 s, then seconds, minutes, hours (`1.5s`, `42s`, `3m05s`, `1h02m`). */
export function formatDuration(ms: number): string {
  const safe = Math.max(0, ms);
  if (safe < 10_000) return `${(safe / 1000).toFixed(1)}s`;
  const seconds = Math.floor(safe / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

/** A step as lines to show: each earlier run (a push before recreate), then the latest. */
export function everyRun(step: Step): Step[] {
  const { earlier, ...latest } = step;
  return [...(earlier ?? []).map((run) => ({ name: step.name, ...run })), latest];
}
