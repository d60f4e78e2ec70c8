import { STEP_MARK } from '../../workflows/runbook/step-marks';

const MARKS = Object.values(STEP_MARK).join('');
/** A step as `watch`, `status` or a live list shows it: `[+3.5s] ✔ locks  done  1.2s  holds node-x`. */
const STEP_LINE = new RegExp(`^\\s*(?:\\+\\S+\\s+)?([${MARKS}] \\S+\\s+[a-z]+\\b.*)$`);

/**
 * The step lines a command printed more than once, each as it reads without its time offset and padding:
 * a view that replays steps it already showed (a status block, then the same steps again) lists them here.
 */
export function stepLinesShownTwice(output: string): string[] {
  const seen = new Map<string, number>();
  for (const line of output.split('\n')) {
    // eslint-disable-next-line no-control-regex
    const step = STEP_LINE.exec(line.replace(/\u001b\[[0-9;]*m/g, ''))?.[1];
    if (step === undefined) continue;
    const shown = step.replace(/\s+/g, ' ').trim();
    seen.set(shown, (seen.get(shown) ?? 0) + 1);
  }
  return [...seen].filter(([, times]) => times > 1).map(([shown, times]) => `${times}x ${shown}`);
}
