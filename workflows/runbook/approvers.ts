import type { RunbookPolicy } from '../policy';

/** Why `by` may not decide at `gate`, or undefined when the policy lets them. */
export function policyRefusal(
  policy: RunbookPolicy,
  gate: string,
  by: string,
  startedBy: string,
): string | undefined {
  const allowed = policy.approvers[gate] ?? policy.approvers['*'];
  if (allowed && !allowed.includes(by)) {
    return `${by} may not decide at ${gate}; the policy allows ${allowed.join(', ')}.`;
  }
  if (!policy.fourEyes.includes(gate)) return undefined;
  if (isPlaceholder(by)) {
    return `"${by}" names nobody, and ${gate} needs four eyes: send the decision under your own name (mesh runbook approve, or your name in by).`;
  }
  if (by.trim().toLowerCase() === startedBy.trim().toLowerCase()) {
    return `${by} started this runbook and may not also approve ${gate} (four eyes); ask another operator.`;
  }
  return undefined;
}

const PLACEHOLDERS = new Set([
  'your-name',
  'your name',
  'yourname',
  'your_name',
  'name',
  'user',
  'username',
  'me',
  'someone',
  'somebody',
  'anonymous',
  'unknown',
  'operator',
  'todo',
  'changeme',
  'xxx',
  'n/a',
]);

/** A template's stand-in or a word that names no one ("<your name>", "user", "me", ...). */
export function isPlaceholder(by: string): boolean {
  const word = by
    .trim()
    .toLowerCase()
    .replace(/^[<[{("']+|[>\]})"']+$/g, '');
  return word === '' || PLACEHOLDERS.has(word) || /^[-_.?*x]+$/.test(word);
}
