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
  if (policy.fourEyes.includes(gate) && by === startedBy) {
    return `${by} started this runbook and may not also approve ${gate} (four eyes); ask another operator.`;
  }
  return undefined;
}
