import type { Signer } from '../contracts';
import type { RunbookPolicy, SignedMode } from '../policy';
import { parseAllowedSigners, principalsOf } from './allowed-signers';
import { signedModeAt } from './decision-signature';
import { inputHash } from './input-hash';
import { parseSignature, verifySignature } from './ssh-signature';
import { utf8 } from './ssh-wire';
import { startStatement, type StartStatement } from './start-statement';

/** The policy's key for the start of a runbook, beside its gates: `signed: { start: required }`. */
export const START = 'start';

/** A start's signature as its input carries it (`signedStart`). */
export interface SignedStart {
  signature: string;
  signedAt: string;
}

/**
 * Whether a start must be signed: as the policy says for `start`, else required as soon as one of the
 * runbook's gates takes signed decisions only (four eyes then compare two proven principals).
 */
export function startSignedMode(policy: RunbookPolicy, gates: readonly string[]): SignedMode {
  const own = policy.signed[START];
  if (own !== undefined) return own;
  if (gates.some((gate) => signedModeAt(policy, gate) === 'required')) return 'required';
  return policy.signed['*'] === 'off' ? 'off' : 'optional';
}

/** Where a start arrived: what its signature must cover, and when Temporal accepted it. */
export type StartArrival = Omit<StartStatement, 'input' | 'signedAt'> & { startedMs: number };

/**
 * The signer a start's signature proves, undefined when it carries none the mode asks for, else the
 * sentence it is refused with. Its age counts to when Temporal accepted the start, not to the first task.
 */
export function checkStartSignature(
  input: object & { signedStart?: SignedStart | undefined },
  mode: SignedMode,
  policy: RunbookPolicy,
  at: StartArrival,
): Signer | string | undefined {
  if (mode === 'off') return undefined;
  const signed = input.signedStart;
  const how = `start it with mesh runbook start ... --key <your key> (it signs kind, node, module and the input)`;
  if (signed === undefined)
    return mode === 'required'
      ? `The worker's policy takes signed starts only, and this start carries no signature: ${how}.`
      : undefined;
  const signature = parseSignature(signed.signature);
  if (typeof signature === 'string') return `The start's signature is refused: ${signature}.`;
  const signedMs = Date.parse(signed.signedAt);
  if (Number.isNaN(signedMs)) return `The start is signed but its signedAt (${signed.signedAt}) is no time.`;
  const statement = startStatement({ ...at, input: inputHash(input), signedAt: signed.signedAt });
  const wrong = verifySignature(signature, utf8(statement));
  if (wrong)
    return `The start's signature is refused: ${wrong}; it must sign this namespace, runbook id, kind, node, module, starter and input: ${how}.`;
  if (at.startedMs - signedMs > policy.signatureMaxAgeMs)
    return `The start was signed at ${signed.signedAt}, longer before Temporal took it than the policy's ${Math.round(policy.signatureMaxAgeMs / 60_000)} min: sign it again.`;
  if (signedMs - at.startedMs > 60_000)
    return `The start says it was signed at ${signed.signedAt}, after Temporal took it; check the signing machine's clock.`;
  const file = parseAllowedSigners(policy.signers);
  if ('problem' in file)
    return `The policy's signers cannot be read (${file.problem}), so no signed start is taken until they are fixed.`;
  const { fingerprint } = signature.publicKey;
  const principals = principalsOf(file.signers, signature);
  if (principals.length === 0) return `Key ${fingerprint} is not among the policy's signers.`;
  if (!principals.includes(at.startedBy))
    return `The start says startedBy ${at.startedBy}, but key ${fingerprint} signs for ${principals.join(', ')}: start it under that name.`;
  return { principal: at.startedBy, fingerprint };
}
