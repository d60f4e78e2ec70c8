import type { z } from 'zod';

// Bundle-safe (zod types only): workflows use it as well as the CLI, config, adapters and activities.

/** The first problem zod found in a value: where it is and what is wrong, in words an operator reads. */
export interface FirstIssue {
  /** The path to the offending field; an unknown key is named as the last segment. */
  path: PropertyKey[];
  /** The path dotted, e.g. `nodes.novox.tcp.port`; empty when the value as a whole is wrong. */
  field: string;
  problem: string;
}

/** The first issue of a zod error; an unknown field or an invalid record key is named in the path. */
export function firstIssue(error: z.ZodError): FirstIssue {
  const issue = error.issues[0];
  if (!issue) return { path: [], field: '', problem: 'does not match' };
  if (issue.code === 'unrecognized_keys') {
    const [key, ...others] = issue.keys;
    const path = [...issue.path, key ?? '?'];
    const nor = others.length > 0 ? ` (nor ${others.join(', ')})` : '';
    return { path, field: dotted(path), problem: `not a field it knows${nor}` };
  }
  const problem =
    issue.code === 'invalid_key'
      ? `the key is invalid: ${issue.issues[0]?.message ?? issue.message}`
      : issue.message;
  return { path: issue.path, field: dotted(issue.path), problem };
}

/** `field: problem`, with `whole` naming the value when the problem is not in one field. */
export function firstIssueText(error: z.ZodError, whole = 'input'): string {
  const { field, problem } = firstIssue(error);
  return `${field || whole}: ${problem}`;
}

function dotted(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}
