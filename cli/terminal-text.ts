import { isControl, printable } from '../base/printable';

/**
 * The one place text that someone else typed is made safe for the operator's terminal: a decision's
 * comment and `by`, a clearance's reason, a node's hold reasons and failures, step notes and outcomes that
 * quote them. Every string in `value` (a status, a history, list rows) comes back with control characters
 * (ESC sequences, CR, other C0 and C1, bidirectional overrides) shown as `\u001b` and line breaks as
 * spaces, so a comment can neither clear the screen, recolour or reorder what follows, nor forge a line.
 * For text renderers only: `--json` prints the values as recorded (JSON escapes them; see `jsonSafe`).
 */
export function forTerminal<T>(value: T): T {
  if (typeof value === 'string') return printable(value, Number.POSITIVE_INFINITY) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => forTerminal(item)) as T;
  if (value instanceof Date || value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, forTerminal(item)])) as T;
}

/**
 * A message for the terminal whose own line breaks and tabs stay (an error's suggestion on its own line),
 * every other control character shown as `\u001b`.
 */
export function terminalSafe(text: string): string {
  let safe = '';
  for (const ch of text)
    safe +=
      ch !== '\n' && ch !== '\t' && isControl(ch)
        ? `\\u${(ch.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`
        : ch;
  return safe;
}

/**
 * JSON as `--json` prints it, with the characters JSON.stringify leaves raw that a terminal would still
 * act on (C1 controls, line separators, bidirectional overrides) written as `\u` escapes: the same JSON
 * value, safe to show with `cat`.
 */
export function jsonSafe(json: string): string {
  let safe = '';
  for (const ch of json)
    safe +=
      isControl(ch) && ch !== '\n' ? `\\u${(ch.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}` : ch;
  return safe;
}
