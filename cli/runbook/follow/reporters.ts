import type { RecordedDecision, RefusedDecision, RunbookStatus, Step } from '../../../workflows/contracts';
import { errorColour, isLiveTerminal, printJsonLine, printLine } from '../../output';
import { forTerminal } from '../../terminal-text';
import type { ActivityProgress } from './progress';
import { progressLine } from './progress';
import { changedSteps, changeLine, headerLine, outcomeLine } from '../render';
import { decisionLine, refusedLine, waitingBlock } from '../render-gate';
import { fitToWidth, leftOnScreen, liveLines, type LeftOnScreen } from './render-live';

/** What `follow` saw at one look: the status (when a worker answered) and a long activity's progress. */
export interface Look {
  id: string;
  status: RunbookStatus;
  startTime: Date;
  progress?: ActivityProgress;
  now: Date;
}

/** How `follow` shows a runbook as it goes: a live list, appended lines, JSON lines, or nothing. */
export interface FollowReporter {
  look(look: Look): void;
  /** A note for the operator (stderr); a live list makes room for it. */
  note(line: string): void;
  /** The runbook waits (and following stops there) or ended: the last word. */
  stopped(how: 'ended' | 'waiting', look: Look): void;
  /** Restores the terminal (cursor), however following ended. */
  close(): void;
}

function noteLine(line: string): void {
  process.stderr.write(`${errorColour.dim(line)}\n`);
}

function lastWord(how: 'ended' | 'waiting', look: Look): string[] {
  if (how === 'waiting' && look.status.waiting) return waitingBlock(look.id, look.status.waiting, look.now);
  return [outcomeLine(look.status) ?? look.status.phase];
}

/** Decisions taken and refused since the last look (on the first look, all of them), in the order taken. */
class NewDecisions {
  private decisions = 0;
  private refused = 0;

  since(status: RunbookStatus): { decisions: RecordedDecision[]; refused: RefusedDecision[] } {
    const fresh = {
      decisions: status.decisions.slice(this.decisions),
      refused: status.refused.slice(this.refused),
    };
    this.decisions = status.decisions.length;
    this.refused = status.refused.length;
    return fresh;
  }
}

/** A copy's progress line at most this often, so a long copy does not flood a log. */
const PROGRESS_EVERY_MS = 2_000;

/** Not a terminal (a pipe, a file, CI): each change once, as a line of its own; no colours, no redraws. */
export class LineReporter implements FollowReporter {
  private previous: Step[] | undefined;
  private readonly newDecisions = new NewDecisions();
  private shownBytes: number | undefined;
  private shownProgressAt = 0;

  look({ status, startTime, progress, now }: Look): void {
    if (this.previous === undefined) printLine(headerLine(status));
    for (const step of changedSteps(this.previous, status.steps)) printLine(changeLine(step, now, startTime));
    this.previous = status.steps;
    const { decisions, refused } = this.newDecisions.since(status);
    for (const decision of decisions) printLine(`decided: ${decisionLine(decision)}`);
    for (const attempt of refused) printLine(`refused: ${refusedLine(attempt)}`);
    if (
      progress &&
      progress.bytes !== this.shownBytes &&
      now.getTime() - this.shownProgressAt >= PROGRESS_EVERY_MS
    ) {
      printLine(`          ${progressLine(progress)}`);
      this.shownBytes = progress.bytes;
      this.shownProgressAt = now.getTime();
    }
  }

  note(line: string): void {
    noteLine(line);
  }

  stopped(how: 'ended' | 'waiting', look: Look): void {
    lastWord(how, look).forEach((line) => printLine(line));
  }

  close(): void {}
}

const SPIN_EVERY_MS = 120;

/**
 * A terminal: the whole step list redrawn in place, a spinner on the running step, times ticking. Carried
 * on after a stop (the demo decided and follows again), it lists only what came or changed since.
 */
export class LiveReporter implements FollowReporter {
  private drawn = 0;
  private frame = 0;
  private last: Look | undefined;
  private timer: NodeJS.Timeout | undefined;
  private left: LeftOnScreen | undefined;

  constructor(private readonly out: NodeJS.WriteStream = process.stdout) {}

  look(look: Look): void {
    this.last = look;
    if (!this.timer) this.redrawing();
    this.draw(look, this.frame);
  }

  note(line: string): void {
    this.erase();
    noteLine(line);
    if (this.last) this.draw(this.last, this.frame);
  }

  stopped(how: 'ended' | 'waiting', look: Look): void {
    this.stillNow();
    this.draw(look, undefined);
    this.drawn = 0;
    this.last = undefined;
    this.left = leftOnScreen(look.status);
    lastWord(how, look).forEach((line) => this.out.write(`${line}\n`));
  }

  close(): void {
    this.stillNow();
  }

  /** Hides the cursor and ticks the spinner until the list stops. */
  private redrawing(): void {
    this.out.write('\u001b[?25l');
    this.timer = setInterval(() => {
      this.frame++;
      if (this.last) this.draw({ ...this.last, now: new Date() }, this.frame);
    }, SPIN_EVERY_MS);
    this.timer.unref();
  }

  /** Stops ticking and shows the cursor again (an operator may be asked something next). */
  private stillNow(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.out.write('\u001b[?25h');
  }

  private erase(): void {
    if (this.drawn > 0) this.out.write(`\u001b[${this.drawn}A\r\u001b[0J`);
    this.drawn = 0;
  }

  private draw(look: Look, frame: number | undefined): void {
    const columns = Math.max(20, (this.out.columns || 100) - 1);
    const lines = liveLines(look.status, look.now, frame, look.progress, this.left).map((line) =>
      fitToWidth(line, columns),
    );
    this.erase();
    this.out.write(`${lines.join('\n')}\n`);
    this.drawn = lines.length;
  }
}

/** `--json`: one JSON object per line as things change; the caller prints the last one (`"event": "end"`). */
export class JsonLinesReporter implements FollowReporter {
  private previous: Step[] | undefined;
  private readonly newDecisions = new NewDecisions();
  private shownBytes: number | undefined;

  look({ id, status, progress, now }: Look): void {
    for (const step of changedSteps(this.previous, status.steps))
      printJsonLine({ event: 'step', id, at: now.toISOString(), phase: status.phase, step });
    this.previous = status.steps;
    const { decisions, refused } = this.newDecisions.since(status);
    for (const decision of decisions) printJsonLine({ event: 'decision', id, decision });
    for (const attempt of refused) printJsonLine({ event: 'refused', id, decision: attempt });
    if (progress && progress.bytes !== this.shownBytes) {
      printJsonLine({ event: 'progress', id, at: now.toISOString(), progress });
      this.shownBytes = progress.bytes;
    }
  }

  note(line: string): void {
    noteLine(line);
  }

  stopped(): void {}

  close(): void {}
}

/** Prints nothing; the caller shows what it needs. */
export class SilentReporter implements FollowReporter {
  look(): void {}
  note(): void {}
  stopped(): void {}
  close(): void {}
}

/** A text reporter shown only what `forTerminal` made safe of each status and note. */
class TerminalTextReporter implements FollowReporter {
  constructor(private readonly inner: FollowReporter) {}

  look(look: Look): void {
    this.inner.look({ ...look, status: forTerminal(look.status) });
  }

  note(line: string): void {
    this.inner.note(forTerminal(line));
  }

  stopped(how: 'ended' | 'waiting', look: Look): void {
    this.inner.stopped(how, { ...look, status: forTerminal(look.status) });
  }

  close(): void {
    this.inner.close();
  }
}

export function reporterFor(options: { json?: boolean; quiet: boolean }): FollowReporter {
  if (options.json) return new JsonLinesReporter();
  if (options.quiet) return new SilentReporter();
  return new TerminalTextReporter(isLiveTerminal() ? new LiveReporter() : new LineReporter());
}
