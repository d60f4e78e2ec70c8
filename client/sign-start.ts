import { inputHash } from '../workflows/signing/input-hash';
import { startStatement, type StartStatement } from '../workflows/signing/start-statement';
import type { SignedStart } from '../workflows/signing/start-signature';

/** Signs a start statement (an SSH signature, as `ssh-keygen -Y sign -n mesh-runbook` makes it). */
export type StartSigner = (statement: string) => string;

/**
 * The input with its start signed over where it starts and what it says (workflows/signing): the JSON as it
 * will cross Temporal, hashed the way the runbook hashes what it receives.
 */
export function withSignedStart<I extends object>(
  input: I,
  sign: StartSigner,
  at: Omit<StartStatement, 'input' | 'signedAt'>,
): I & { signedStart: SignedStart } {
  const sent = JSON.parse(JSON.stringify(input)) as I;
  const signedAt = new Date().toISOString();
  const signature = sign(startStatement({ ...at, input: inputHash(sent), signedAt }));
  return { ...sent, signedStart: { signature, signedAt } };
}
