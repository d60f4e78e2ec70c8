import { DATA_PATH_MOVE_STANDS_FOR, EDGE_FLIP_STANDS_FOR } from '../fleet/contracts';
import type { RunbookPolicy } from '../policy';

/**
 * Gates whose approval stands for another's: an edge-flip fleet's approve-waves approves its later nodes'
 * stops, a data-path-move fleet's approve-move-waves their removal of the old data.
 */
export const STANDS_FOR: Readonly<Record<string, string>> = Object.fromEntries(
  [EDGE_FLIP_STANDS_FOR, DATA_PATH_MOVE_STANDS_FOR].map((fleet) => [fleet.wavesGate, fleet.gate]),
);

/**
 * Why `by` may not decide at `gate`, or undefined when the policy lets them. A gate that stands for another
 * is held to that gate's rules too.
 */
export function policyRefusal(
  policy: RunbookPolicy,
  gate: string,
  by: string,
  startedBy: string,
): string | undefined {
  const standsFor = STANDS_FOR[gate];
  const own = rulesRefusal(policy, gate, { by, startedBy, at: gate });
  if (own || standsFor === undefined) return own;
  const theirs = rulesRefusal(policy, standsFor, { by, startedBy, at: gate });
  return theirs && `${theirs} (${gate} approves ${standsFor} for the fleet's later nodes: its rules apply.)`;
}

/** Why the rules of `rulesOf` refuse `by` deciding at gate `at`. */
function rulesRefusal(
  policy: RunbookPolicy,
  rulesOf: string,
  { by, startedBy, at }: { by: string; startedBy: string; at: string },
): string | undefined {
  const allowed = policy.approvers[rulesOf] ?? policy.approvers['*'];
  if (allowed && !allowed.includes(by)) {
    return `${by} may not decide at ${at}; the policy allows ${allowed.join(', ')}.`;
  }
  if (!policy.fourEyes.includes(rulesOf)) return undefined;
  if (isPlaceholder(by)) {
    return `"${by}" names nobody, and ${at} needs four eyes: send the decision under your own name (mesh runbook approve, or your name in by).`;
  }
  if (by.trim().toLowerCase() === startedBy.trim().toLowerCase()) {
    return `${by} started this runbook and may not also approve ${at} (four eyes); ask another operator.`;
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
