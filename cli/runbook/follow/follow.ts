import { setTimeout as delay } from 'node:timers/promises';
import type { Phase, RunbookStatus } from '../../../workflows/contracts';
import { UsageError } from '../../errors';
import { printJsonLine } from '../../output';
import type { RunbookClient } from '../client';
import { DETACHED, isTerminal } from '../exit-codes';
import { HistoryGrows } from './history-grows';
import { reporterFor, type FollowReporter } from './reporters';
import { observe, type Observation } from '../observe';

export interface FollowOptions {
  /** `watch` and `start` stop when the runbook waits for a decision; `abort` follows it to its end. */
  stopWhenWaiting: boolean;
  /** Print nothing while following; the caller prints the final status. */
  quiet: boolean;
  /** Report as JSON lines (one object per change); `concludeFollow` prints the last line. */
  json?: boolean;
  pollMs?: number;
  /**
   * A view an earlier follow of the same runbook showed, carried on: it shows only what changed since, and
   * introduces the runbook once. Its owner closes it. Without one, each follow shows the runbook afresh.
   */
  view?: FollowView;
}

/** What the operator sees of one runbook across several follows (the demo's, between its decisions). */
export class FollowView {
  introduced = false;

  constructor(readonly reporter: FollowReporter) {}

  close(): void {
    this.reporter.close();
  }
}

export function followView(options: { json?: boolean; quiet: boolean }): FollowView {
  return new FollowView(reporterFor(options));
}

/** Runs `follows` (follows of one runbook, each given `view`) in one text view, closed however they end. */
export async function inOneView(follows: (view: FollowView) => Promise<void>): Promise<void> {
  const view = followView({ quiet: false });
  try {
    await follows(view);
  } finally {
    view.close();
  }
}

export interface FollowEnd {
  how: 'ended' | 'waiting' | 'detached';
  /** The last status seen (absent when no worker ever answered). */
  status?: RunbookStatus;
}

const DETACH = Symbol('detach');

/**
 * Looks at the runbook's status whenever its history grows (and every `pollMs`, for what moves without
 * an event: a long activity's progress) and shows it as it changes (a live step list on a terminal, lines
 * elsewhere, JSON lines with --json), until it ends (or waits, when asked to stop there). Ctrl-C
 * detaches: the runbook is not touched and goes on without this terminal.
 */
export async function follow(rb: RunbookClient, id: string, options: FollowOptions): Promise<FollowEnd> {
  const pollMs = options.pollMs ?? 500;
  const stop = new AbortController();
  const detach = () => stop.abort();
  process.on('SIGINT', detach);
  const detached = new Promise<typeof DETACH>((resolve) =>
    stop.signal.addEventListener('abort', () => resolve(DETACH), { once: true }),
  );
  const view = options.view ?? followView(options);
  const reporter = view.reporter;
  const grows = new HistoryGrows(rb, id);

  let last: RunbookStatus | undefined;
  let shownProblem: string | undefined;
  let first = true;
  try {
    while (!stop.signal.aborted) {
      let observed: Observation | typeof DETACH;
      try {
        observed = await Promise.race([observe(rb, id), detached]);
      } catch (error) {
        if (error instanceof UsageError || first) throw error;
        const problem = `cannot read ${id} right now (${error instanceof Error ? error.message : String(error)}); trying again`;
        if (problem !== shownProblem) reporter.note((shownProblem = problem));
        await delay(2_000, undefined, { signal: stop.signal }).catch(() => undefined);
        continue;
      }
      if (observed === DETACH) break;
      if (!view.introduced && !options.quiet && !options.json)
        reporter.note(`following ${id}; Ctrl-C detaches (the runbook keeps running)`);
      view.introduced = true;
      first = false;
      const status = observed.status;
      if (status) {
        const look = {
          id,
          status,
          startTime: observed.startTime,
          now: new Date(),
          ...(observed.progress ? { progress: observed.progress } : {}),
        };
        reporter.look(look);
        last = status;
        shownProblem = undefined;
        // The phase turns final a moment before the run closes (it still lets its locks go): the end is
        // the run's close, so that a start right after finds the node free.
        if (isTerminal(status.phase) && observed.closed) {
          reporter.stopped('ended', look);
          return { how: 'ended', status };
        }
        if (status.phase === 'waiting' && status.waiting && options.stopWhenWaiting) {
          reporter.stopped('waiting', look);
          return { how: 'waiting', status };
        }
      } else if (observed.unanswered && observed.unanswered !== shownProblem) {
        shownProblem = observed.unanswered;
        reporter.note(
          `${id} is running but ${observed.unanswered}; it goes on when a worker runs (\`mesh runbook worker\` or \`mesh runbook dev\`)`,
        );
      }
      const closing = status !== undefined && isTerminal(status.phase);
      await grownOrAfter(grows, closing ? 100 : status ? pollMs : 2_000, stop.signal);
    }
    reporter.note(`detached from ${id}; it keeps running. Re-attach with \`mesh runbook watch ${id}\`.`);
    return { how: 'detached', ...(last ? { status: last } : {}) };
  } finally {
    grows.close();
    if (!options.view) view.close();
    process.off('SIGINT', detach);
  }
}

/** Waits until the history grows, `ms` pass or `stop` aborts, leaving no timer behind. */
async function grownOrAfter(grows: HistoryGrows, ms: number, stop: AbortSignal): Promise<void> {
  const tick = new AbortController();
  const stopTick = () => tick.abort();
  stop.addEventListener('abort', stopTick, { once: true });
  try {
    await Promise.race([delay(ms, undefined, { signal: tick.signal }).catch(() => undefined), grows.next()]);
  } finally {
    tick.abort();
    stop.removeEventListener('abort', stopTick);
  }
}

/**
 * Sets the exit code (the phase's, or 130 when detached) and, for --json, prints the last JSON line:
 * `{"event": "end", "how": ..., "exitCode": ..., "status": {...}}`.
 */
export function concludeFollow(end: FollowEnd, json: boolean, exitFor: (phase: Phase) => number): void {
  const exitCode = end.how === 'detached' || !end.status ? DETACHED : exitFor(end.status.phase);
  if (json) printJsonLine({ event: 'end', how: end.how, exitCode, status: end.status ?? null });
  process.exitCode = exitCode;
}
