/** Text from a node or an argument, made safe to show on a terminal. Plain TypeScript: no zod, bundle-safe. */

/**
 * Whether a character would act on a terminal or reorder the text around it: a C0 or C1 control character,
 * a line or paragraph separator, or a bidirectional override.
 */
export function isControl(ch: string): boolean {
  const code = ch.codePointAt(0) ?? 0;
  return (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0x2028 ||
    code === 0x2029 ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

/** Whether text holds a character a host path, and so a resource id, may not: a control character or line break. */
export function unprintable(text: string): boolean {
  for (const ch of text) if (isControl(ch)) return true;
  return false;
}

/** How much of a node's own sentence (a hold's reason, a failure) the runbook keeps. */
export const NODE_TEXT_MAX = 500;

/**
 * Text a node wrote that an operator will read, made safe to show: line breaks and tabs become spaces, other
 * control characters are escaped (`\u001b`), and it is cut after 500 characters, saying how long it was.
 */
export function printable(text: string, max = NODE_TEXT_MAX): string {
  let safe = '';
  for (const ch of text) {
    safe += /\s/.test(ch)
      ? ' '
      : isControl(ch)
        ? `\\u${(ch.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`
        : ch;
    if (safe.length > max) return `${safe.slice(0, max)}… (${text.length} characters)`;
  }
  return safe;
}
