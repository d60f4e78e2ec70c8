import type { temporal } from '@temporalio/proto';
import type { RecordedDecision } from '../../../workflows/contracts';
import { parseAllowedSigners, principalsOf } from '../../../workflows/signing/allowed-signers';
import { parseSignature, verifySignature } from '../../../workflows/signing/ssh-signature';
import { utf8 } from '../../../workflows/signing/ssh-wire';
import { decisionStatement } from '../../../workflows/signing/statement';
import { readHistory } from './events';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export interface DecisionCheck {
  decision: RecordedDecision;
  outcome: 'verified' | 'not verified' | 'unsigned';
  /** What the check found: the key and principal, or why it does not verify. */
  detail: string;
}

/** Every decision a run's events recorded, with that run's id (a signature covers the run it was sent to). */
export function decisionsByRun(runs: HistoryEvent[][]): { runId: string; decision: RecordedDecision }[] {
  return runs.flatMap((events) => {
    const runId = events[0]?.workflowExecutionStartedEventAttributes?.originalExecutionRunId ?? '';
    return readHistory(events).decisions.map((decision) => ({ runId, decision }));
  });
}

/**
 * Re-verifies each recorded decision's signature offline against `signers` (an allowed_signers text), as the
 * runbook did when it took it, except the signature's age: a signer removed since no longer verifies.
 */
export function verifyDecisions(
  recorded: { runId: string; decision: RecordedDecision }[],
  signers: string,
  where: { namespace: string; runbook: string },
): DecisionCheck[] | string {
  const file = parseAllowedSigners(signers);
  if ('problem' in file) return file.problem;
  return recorded.map(({ runId, decision }) => {
    if (decision.signature === undefined) return { decision, outcome: 'unsigned', detail: 'no signature' };
    const signature = parseSignature(decision.signature);
    if (typeof signature === 'string') return { decision, outcome: 'not verified', detail: signature };
    const statement = decisionStatement({
      ...where,
      run: runId,
      gate: decision.gate,
      action: decision.action,
      evidence: decision.evidence ?? '',
      signedAt: decision.signedAt ?? '',
    });
    const wrong = verifySignature(signature, utf8(statement));
    const key = signature.publicKey.fingerprint;
    if (wrong) return { decision, outcome: 'not verified', detail: wrong };
    const principals = principalsOf(file.signers, signature);
    if (!principals.includes(decision.by))
      return {
        decision,
        outcome: 'not verified',
        detail:
          principals.length === 0
            ? `key ${key} is not among these signers`
            : `key ${key} signs for ${principals.join(', ')}, not ${decision.by}`,
      };
    return { decision, outcome: 'verified', detail: `${decision.by}, key ${key}` };
  });
}
