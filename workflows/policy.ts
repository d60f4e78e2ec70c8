import { z } from 'zod';

/** The gates that destroy something the operator cannot get back by a decision: four eyes by default. */
export const DESTRUCTIVE_GATES = ['approve-stop-predecessor', 'approve-remove-old-data'] as const;

/**
 * Who may decide, and when to remind: from the worker's config (never from whoever starts a runbook),
 * read once by each runbook at its start so the policy it ran under is in its history.
 */
export const RunbookPolicy = z.object({
  /** Gate name → the identities allowed to decide there; `*` applies to every gate not listed. None: anyone. */
  approvers: z.record(z.string().min(1), z.array(z.string().min(1)).min(1)).default({}),
  /** Gates where the approver must not be the identity that started the runbook. */
  fourEyes: z.array(z.string().min(1)).default([...DESTRUCTIVE_GATES]),
  reminders: z
    .object({
      /** How long a gate waits before the first reminder. */
      afterMs: z
        .number()
        .int()
        .positive()
        .default(15 * 60_000),
      /** How often it reminds again while it still waits. */
      everyMs: z
        .number()
        .int()
        .positive()
        .default(30 * 60_000),
    })
    .prefault({}),
});
export type RunbookPolicy = z.infer<typeof RunbookPolicy>;
export type RunbookPolicyInput = z.input<typeof RunbookPolicy>;

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
