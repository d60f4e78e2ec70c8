import type { StartSigner } from '../../../client/sign-start';
import type { RunbookKind } from '../../../workflows/contracts';
import { PLANS } from '../../../workflows/plans';
import { startSignedMode } from '../../../workflows/signing/start-signature';
import { effectiveConfig } from '../../config-command';
import { UsageError } from '../../errors';
import { signWithKey } from '../decide/sign-with-key';

/**
 * The signer of `mesh runbook start --key <file>` (default $MESH_SIGNING_KEY), or none. A start the
 * config's policy wants signed and no key is refused here, before the plan: the runbook would refuse it at
 * its first task anyway (the worker's policy is the one that counts).
 */
export function startSigner(
  key: string | undefined,
  kind: RunbookKind,
  extraGates: string[] = [],
): StartSigner | undefined {
  const file = key ?? process.env.MESH_SIGNING_KEY;
  if (file !== undefined && file.trim() !== '')
    return (statement) => signWithKey(file, statement, 'the start');
  const gates = [...PLANS[kind].steps.map((step) => step.name), ...extraGates];
  if (startSignedMode(effectiveConfig().policy, gates) === 'required')
    throw new UsageError(
      `The policy takes signed starts only (a gate of ${kind} takes signed decisions only), and no key signs this one.`,
      'Give --key <your SSH key> (or set MESH_SIGNING_KEY): it signs kind, node, module and the input.',
    );
  return undefined;
}
