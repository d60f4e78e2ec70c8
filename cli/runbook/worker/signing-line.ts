import type { RunbookPolicy } from '../../../workflows/policy';
import { parseAllowedSigners } from '../../../workflows/signing/allowed-signers';

/** How this worker's runbooks take decisions: unsigned (no signers), or signed where the policy requires. */
export function signingLine(policy: RunbookPolicy): string {
  const file = parseAllowedSigners(policy.signers);
  const signers = 'signers' in file ? file.signers.length : 0;
  const required = Object.entries(policy.signed)
    .filter(([, mode]) => mode === 'required')
    .map(([gate]) => gate);
  if (signers === 0 && required.length === 0)
    return 'unsigned: the policy lists no signers (policy.signers), so no decision can be signed here';
  return `${signers} signer${signers === 1 ? '' : 's'}; signed decisions required at ${required.length > 0 ? required.join(', ') : 'no gate'}`;
}
