import type { Decision, RecordedDecision, Signer } from '../contracts';
import type { RunbookPolicy, SignedMode } from '../policy';
import { STANDS_FOR } from '../runbook/approvers';
import { parseAllowedSigners, principalsOf } from './allowed-signers';
import { parseSignature, verifySignature } from './ssh-signature';
import { utf8 } from './ssh-wire';
import { decisionStatement } from './statement';

/** A signature made this far ahead of the runbook's clock is refused: clocks drift, not by minutes. */
const MOST_AHEAD_MS = 60_000;

/** Where a decision arrives: what its signature must have signed, and the runbook's clock. */
export interface Arrival {
  namespace: string;
  runbook: string;
  run: string;
  gate: string;
  nowMs: number;
}

/** The policy's rule at `gate`; a gate that stands for another (approve-waves) takes the stricter of the two. */
export function signedModeAt(policy: RunbookPolicy, gate: string): SignedMode {
  const rulesOf = [gate, STANDS_FOR[gate]].flatMap((g) => (g === undefined ? [] : [g]));
  const modes = rulesOf.map((g) => policy.signed[g] ?? policy.signed['*'] ?? 'optional');
  if (modes.includes('required')) return 'required';
  return modes.includes('optional') ? 'optional' : 'off';
}

const minutes = (ms: number) => `${Math.round(ms / 60_000)} min`;

/**
 * The signer a decision's signature proves, undefined when it carries none and the gate does not require one
 * (or the gate ignores signatures), else the sentence it is refused with. Pure: the validator's check.
 */
export function checkSignature(
  decision: Decision,
  policy: RunbookPolicy,
  at: Arrival,
): Signer | string | undefined {
  const mode = signedModeAt(policy, at.gate);
  if (mode === 'off') return undefined;
  const how = `sign it with your SSH key: mesh runbook decide ${at.runbook} ${decision.action} --key <key>`;
  if (decision.signature === undefined)
    return mode === 'required' ? `${at.gate} takes signed decisions only; ${how}.` : undefined;
  const signature = parseSignature(decision.signature);
  if (typeof signature === 'string') return `The decision's signature is refused: ${signature}.`;
  const signedMs = decision.signedAt === undefined ? Number.NaN : Date.parse(decision.signedAt);
  if (Number.isNaN(signedMs))
    return 'The decision is signed but says no valid signedAt, which the signature covers.';
  const statement = decisionStatement({
    namespace: at.namespace,
    runbook: at.runbook,
    run: at.run,
    gate: at.gate,
    action: decision.action,
    evidence: decision.evidence ?? '',
    signedAt: decision.signedAt ?? '',
  });
  const wrong = verifySignature(signature, utf8(statement));
  if (wrong)
    return `The decision's signature is refused: ${wrong}; it must sign this namespace, runbook, run, gate, action and evidence; ${how}.`;
  if (at.nowMs - signedMs > policy.signatureMaxAgeMs)
    return `The decision was signed at ${decision.signedAt}, more than ${minutes(policy.signatureMaxAgeMs)} ago (the policy's most); sign it again.`;
  if (signedMs - at.nowMs > MOST_AHEAD_MS)
    return `The decision says it was signed at ${decision.signedAt}, ahead of the runbook's clock; check the signing machine's clock and sign again.`;
  const file = parseAllowedSigners(policy.signers);
  if ('problem' in file)
    return `The policy's signers cannot be read (${file.problem}), so no signed decision is taken until they are fixed.`;
  const { fingerprint } = signature.publicKey;
  const principals = principalsOf(file.signers, signature);
  if (principals.length === 0)
    return `Key ${fingerprint} is not among the policy's signers; ask for it to be added to the allowed signers, or sign with a key that is.`;
  if (!principals.includes(decision.by))
    return `The decision says by ${decision.by}, but key ${fingerprint} signs for ${principals.join(', ')}; send it under that name.`;
  return { principal: decision.by, fingerprint };
}

/** The signer the handler records for a decision the validator let through: its `by` and its key. */
export function signerOf(decision: Decision, policy: RunbookPolicy, gate: string): Signer | undefined {
  if (decision.signature === undefined || signedModeAt(policy, gate) === 'off') return undefined;
  const signature = parseSignature(decision.signature);
  return typeof signature === 'string'
    ? undefined
    : { principal: decision.by, fingerprint: signature.publicKey.fingerprint };
}

/** Why the key that signed `decision` no longer signs for its `by` under `current` (a newer policy), if so. */
export function revokedSigner(decision: RecordedDecision, current: RunbookPolicy): string | undefined {
  const signature = decision.signature === undefined ? undefined : parseSignature(decision.signature);
  if (signature === undefined || typeof signature === 'string') return undefined;
  const file = parseAllowedSigners(current.signers);
  if ('problem' in file)
    return `The worker's current signers cannot be read (${file.problem}), so no signed decision is taken until they are fixed.`;
  if (principalsOf(file.signers, signature).includes(decision.by)) return undefined;
  return `Key ${signature.publicKey.fingerprint} no longer signs for ${decision.by}: the worker's signers changed since this runbook started; sign with a key that is among them.`;
}
