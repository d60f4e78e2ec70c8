import type { z } from 'zod';

/** The first problem zod found, as a dotted field and a phrase: record keys and unknown fields named. */
export function firstIssue(error: z.ZodError): { field: string; problem: string } {
  const issue = error.issues[0];
  if (!issue) return { field: 'the top level', problem: 'it does not match' };
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys;
    const field = [...path, keys[0] ?? '?'].join('.');
    return {
      field,
      problem: `not a field it knows${keys.length > 1 ? ` (nor ${keys.slice(1).join(', ')})` : ''}`,
    };
  }
  if (issue.code === 'invalid_key') {
    const inner = issue.issues[0]?.message ?? issue.message;
    return { field: path.join('.') || 'the top level', problem: `the key is invalid: ${inner}` };
  }
  return { field: path.join('.') || 'the top level', problem: issue.message };
}

/** What a failed read means to an operator. */
export function readProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'it does not exist';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'it is a directory';
  return code ?? String((error as Error).message);
}
