import { setTimeout as delay } from 'node:timers/promises';
import type { Phase, RunbookStatus, Step } from '../../workflows/contracts';
import { UsageError } from '../errors';
import { errorColour, printJson, printLine } from '../output';
import type { RunbookClient } from './client';
import { DETACHED, isTerminal } from './exit-codes';
import { observe, type Observation } from './observe';
import { progressLine } from './progress';
import { changedSteps, changeLine, headerLine, outcomeLine, waitingBlock } from './render';

export interface FollowOptions {
  /** `watch` and `start` stop when the runbook waits for a decision; `abort` follows it to its end. */
  stopWhenWaiting: boolean;
  /** Print nothing while following; the caller prints the final status. */
  quiet: boolean;
  pollMs?: number;
}

export interface FollowEnd {
  how: 'ended' | 'waiting' | 'detached';
  /** The last status seen (absent when no worker ever answered). */
  status?: RunbookStatus;
}

const DETACH = Symbol('detach');
/** A copy's progress line at most this often, so a long copy does not flood the terminal or a log. */
const PROGRESS_EVERY_MS = 2_000;

function note(line: string): void {
  process.stderr.write(`${errorColour.dim(line)}\n`);
}

/**
 * Polls the runbook's status and prints each step as it changes, until it ends (or waits, when asked to
 * stop there). Ctrl-C detaches: the runbook is not touched and goes on without this terminal.
 */
export async function follow(rb: RunbookClient, id: string, options: FollowOptions): Promise<FollowEnd> {
  const pollMs = options.pollMs ?? 500;
  const stop = new AbortController();
  const detach = () => stop.abort();
  process.on('SIGINT', detach);
  const detached = new Promise<typeof DETACH>((resolve) =>
    stop.signal.addEventListener('abort', () => resolve(DETACH), { once: true }),
  );
  const print = (line: string) => {
    if (!options.quiet) printLine(line);
  };

  let previous: Step[] | undefined;
  let last: RunbookStatus | undefined;
  let shownProblem: string | undefined;
  let shownBytes: number | undefined;
  let shownProgressAt = 0;
  let first = true;
  try {
    while (!stop.signal.aborted) {
      let observed: Observation | typeof DETACH;
      try {
        observed = await Promise.race([observe(rb, id), detached]);
      } catch (error) {
        if (error instanceof UsageError || first) throw error;
        const problem = `cannot read ${id} right now (${error instanceof Error ? error.message : String(error)}); trying again`;
        if (problem !== shownProblem) note((shownProblem = problem));
        await delay(2_000, undefined, { signal: stop.signal }).catch(() => undefined);
        continue;
      }
      if (observed === DETACH) break;
      if (first && !options.quiet) note(`following ${id}; Ctrl-C detaches (the runbook keeps running)`);
      first = false;
      const now = new Date();
      const status = observed.status;
      if (status) {
        if (previous === undefined) print(headerLine(status));
        for (const step of changedSteps(previous, status.steps))
          print(changeLine(step, now, observed.startTime));
        const progress = observed.progress;
        if (
          progress &&
          progress.bytes !== shownBytes &&
          now.getTime() - shownProgressAt >= PROGRESS_EVERY_MS
        ) {
          print(`          ${progressLine(progress)}`);
          shownBytes = progress.bytes;
          shownProgressAt = now.getTime();
        }
        previous = status.steps;
        last = status;
        shownProblem = undefined;
        if (isTerminal(status.phase)) {
          const outcome = outcomeLine(status);
          print(outcome ?? status.phase);
          return { how: 'ended', status };
        }
        if (status.phase === 'waiting' && status.waiting && options.stopWhenWaiting) {
          waitingBlock(id, status.waiting, now).forEach(print);
          return { how: 'waiting', status };
        }
      } else if (observed.unanswered && observed.unanswered !== shownProblem) {
        shownProblem = observed.unanswered;
        note(
          `${id} is running but ${observed.unanswered}; it goes on when a worker runs (\`mesh runbook worker\` or \`mesh runbook dev\`)`,
        );
      }
      await delay(status ? pollMs : 2_000, undefined, { signal: stop.signal }).catch(() => undefined);
    }
    note(`detached from ${id}; it keeps running. Re-attach with \`mesh runbook watch ${id}\`.`);
    return { how: 'detached', ...(last ? { status: last } : {}) };
  } finally {
    process.off('SIGINT', detach);
  }
}

/** Prints the final status for `--json` and sets the exit code: the phase's, or 130 when detached. */
export function concludeFollow(end: FollowEnd, json: boolean, exitFor: (phase: Phase) => number): void {
  if (json) printJson(end.status ?? null);
  process.exitCode = end.how === 'detached' || !end.status ? DETACHED : exitFor(end.status.phase);
}
