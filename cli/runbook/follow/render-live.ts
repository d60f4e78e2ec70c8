import type { RunbookStatus } from '../../../workflows/contracts';
import { everyRun } from '../../../workflows/runbook/step-marks';
import { colour } from '../../output';
import { progressLine, type ActivityProgress } from './progress';
import { headerLine, stepLine } from '../render';
import { decisionSections } from '../render-gate';

/** Braille spinner frames: one per redraw while a step runs. */
export const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * The live step list `watch` redraws on a terminal: the header, every step of the plan (a spinner on the
 * one that runs, its time ticking), a progress bar under it while a long activity heartbeats progress, and
 * the decisions taken and refused.
 * `frame` undefined draws the list as it stands, without a spinner (the last frame, once it stops).
 */
export function liveLines(
  status: RunbookStatus,
  now: Date,
  frame: number | undefined,
  progress?: ActivityProgress,
): string[] {
  const width = Math.max(0, ...status.steps.map((step) => step.name.length));
  const lines = [headerLine(status)];
  for (const step of status.steps.flatMap(everyRun)) {
    const spinner =
      step.state === 'running' && frame !== undefined
        ? colour.cyan(SPINNER[frame % SPINNER.length] ?? '')
        : undefined;
    lines.push(`  ${stepLine(step, now, width, true, spinner)}`);
    if (step.state === 'running' && progress) lines.push(`      ${progressLine(progress)}`);
  }
  lines.push(...decisionSections(status.decisions, status.refused));
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
