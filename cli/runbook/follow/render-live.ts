import type { RunbookStatus, Step } from '../../../workflows/contracts';
import { everyRun } from '../../../workflows/runbook/step-marks';
import { colour } from '../../output';
import { progressLine, type ActivityProgress } from './progress';
import { headerLine, stepLine } from '../render';
import { decisionSections } from '../render-gate';

/** Braille spinner frames: one per redraw while a step runs. */
export const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** What a live list left on screen when it stopped: each run of each step, and the decisions it listed. */
export interface LeftOnScreen {
  runs: Map<string, Step>;
  decisions: number;
  refused: number;
}

/** Every run of every step (a push before recreate, then the latest), each with its key: step and run. */
function keyedRuns(status: RunbookStatus): [string, Step][] {
  return status.steps.flatMap((step) =>
    everyRun(step).map((run, i): [string, Step] => [`${step.name}#${i}`, run]),
  );
}

export function leftOnScreen(status: RunbookStatus): LeftOnScreen {
  return {
    runs: new Map(keyedRuns(status)),
    decisions: status.decisions.length,
    refused: status.refused.length,
  };
}

/** The runs to list: all of them, or after a stop only those that came or changed since. */
function runsToList(status: RunbookStatus, left: LeftOnScreen | undefined): Step[] {
  const runs = keyedRuns(status);
  if (!left) return runs.map(([, run]) => run);
  return runs
    .filter(([key, run]) => {
      const shown = left.runs.get(key);
      return shown === undefined || shown.state !== run.state || shown.note !== run.note;
    })
    .map(([, run]) => run);
}

/**
 * The live step list `watch` redraws on a terminal: the header, every step of the plan (a spinner on the
 * one that runs, its time ticking), a progress bar under it while a long activity heartbeats progress, and
 * the decisions taken and refused. After a stop (`left`: the demo decided and follows again), only the
 * runs and decisions that came or changed since, so no step is listed twice.
 * `frame` undefined draws the list as it stands, without a spinner (the last frame, once it stops).
 */
export function liveLines(
  status: RunbookStatus,
  now: Date,
  frame: number | undefined,
  progress?: ActivityProgress,
  left?: LeftOnScreen,
): string[] {
  const width = Math.max(0, ...status.steps.map((step) => step.name.length));
  const lines = [headerLine(status)];
  for (const step of runsToList(status, left)) {
    const spinner =
      step.state === 'running' && frame !== undefined
        ? colour.cyan(SPINNER[frame % SPINNER.length] ?? '')
        : undefined;
    lines.push(`  ${stepLine(step, now, width, true, spinner)}`);
    if (step.state === 'running' && progress) lines.push(`      ${progressLine(progress)}`);
  }
  lines.push(
    ...decisionSections(
      status.decisions.slice(left?.decisions ?? 0),
      status.refused.slice(left?.refused ?? 0),
    ),
  );
  return lines;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/y;

/** Cuts a line to `columns` visible characters (colour codes kept), so a redraw never wraps. */
export function fitToWidth(line: string, columns: number): string {
  let visible = 0;
  let out = '';
  for (let i = 0; i < line.length;) {
    ANSI.lastIndex = i;
    const code = ANSI.exec(line);
    if (code) {
      out += code[0];
      i += code[0].length;
      continue;
    }
    const char = String.fromCodePoint(line.codePointAt(i) ?? 0);
    if (visible >= columns) {
      i += char.length;
      continue;
    }
    out += char;
    visible++;
    i += char.length;
  }
  return out;
}
