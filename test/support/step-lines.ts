import { STEP_MARK } from '../../workflows/runbook/step-marks';

const MARKS = Object.values(STEP_MARK).join('');
/** A step as `watch`, `status` or a live list shows it: `[+3.5s] ✔ locks  done  1.2s  holds node-x`. */
const STEP_LINE = new RegExp(`^\\s*(?:\\+\\S+\\s+)?([${MARKS}] (\\S+)\\s+[a-z]+\\b.*)$`);

/**
 * The step lines a command printed again with nothing of that step shown in between, each as it reads
 * without its time offset and padding, and how often: a view that replays steps it already showed (a status
 * block, then the same steps again) lists them here. A step that really changes and changes back (a fleet's
 * node running, waiting at a gate, running again after the decision) is shown anew each time, and is not.
 */
export function stepLinesShownAgain(output: string): string[] {
  const lastOf = new Map<string, string>();
  const again = new Map<string, number>();
  for (const line of output.split('\n')) {
    // eslint-disable-next-line no-control-regex
    const found = STEP_LINE.exec(line.replace(/\u001b\[[0-9;]*m/g, ''));
    if (!found) continue;
    const [, step = '', name = ''] = found;
    const shown = step.replace(/\s+/g, ' ').trim();
    if (lastOf.get(name) === shown) again.set(shown, (again.get(shown) ?? 1) + 1);
    lastOf.set(name, shown);
  }
  return [...again].map(([shown, times]) => `${times}x ${shown}`);
}
