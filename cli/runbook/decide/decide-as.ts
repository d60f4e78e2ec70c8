import type { Decision } from '../../../workflows/contracts';
import { operator, resolveRunbookId } from '../kinds';
import { load } from '../lazy';

export interface CliDecision {
  id: string;
  action: string;
  gate?: string | undefined;
  evidence?: string | undefined;
  as?: string | undefined;
  comment?: string | undefined;
  key?: string | undefined;
  json: boolean;
}

/** Where the CLI's `by` came from: `--as`, else the OS user. */
export function identityOf(as: string | undefined): 'as-flag' | 'os-user' {
  return as !== undefined ? 'as-flag' : 'os-user';
}

/** `MESH_SIGNING_KEY`: the key every decision is signed with when no --key is given. */
function signingKeyFromEnv(): string | undefined {
  const key = process.env.MESH_SIGNING_KEY;
  return key === undefined || key.trim() === '' ? undefined : key;
}

/**
 * Sends one decision for `approve` and `decide`: who is the --as user or the OS user, and the decision says
 * which; the evidence is --evidence, else the hash of the gate as the runbook shows it now (printed before
 * it is sent).
 */
export async function decideAs(input: CliDecision): Promise<void> {
  const by = operator(input.as);
  const decision: Decision = {
    action: input.action,
    by,
    identity: identityOf(input.as),
    ...(input.gate ? { gate: input.gate } : {}),
    ...(input.evidence ? { evidence: input.evidence } : {}),
    ...(input.comment ? { comment: input.comment } : {}),
  };
  const { withClient } = load.client();
  await withClient(
    (rb) =>
      load
        .decision()
        .sendDecision(
          rb,
          resolveRunbookId(input.id),
          decision,
          input.json ? 'json' : 'text',
          input.key ?? signingKeyFromEnv(),
        ),
    {
      operator: by,
    },
  );
}
