import type { Decision } from '../../../workflows/contracts';
import { UsageError } from '../../errors';
import { printLine } from '../../output';
import { type RunbookClient } from '../client';
import { askStatus } from '../observe';
import { runningRunbook } from './decision';
import { signedDecision } from './sign-with-key';

interface SignRequest {
  gate: string;
  action: string;
  by: string;
  evidence?: string | undefined;
  comment?: string | undefined;
  key?: string | undefined;
}

/**
 * `mesh runbook sign`: the decide Update's input for the Web UI, signed over this runbook's current run, the
 * gate, the action and the evidence (the gate's current one unless given), printed as one JSON line.
 */
export async function printSignedInput(rb: RunbookClient, id: string, request: SignRequest): Promise<void> {
  const key = request.key ?? process.env.MESH_SIGNING_KEY;
  if (key === undefined || key.trim() === '')
    throw new UsageError(
      'Give the key to sign with: --key <file> (or set MESH_SIGNING_KEY).',
      `For example --key ~/.ssh/id_ed25519.`,
    );
  const { described } = await runningRunbook(rb, id, 'sign a decision for', 'a decision');
  let evidence = request.evidence;
  if (evidence === undefined) {
    const asked = await askStatus(rb, { workflowId: id, runId: '', taskQueue: described.taskQueue });
    if (!asked.status)
      throw new Error(`${id} cannot say where it waits now: ${asked.problem ?? 'no status'}.`);
    const { waiting } = asked.status;
    if (!waiting || waiting.gate !== request.gate)
      throw new UsageError(
        `${id} does not wait at ${request.gate} now${waiting ? ` (it waits at ${waiting.gate})` : ''}, so there is no evidence to sign.`,
        `See where it waits with \`mesh runbook status ${id}\`, or give --evidence <hash>.`,
      );
    evidence = waiting.evidence;
  }
  const decision: Decision = {
    gate: request.gate,
    action: request.action,
    by: request.by,
    identity: 'web-ui',
    evidence,
    ...(request.comment ? { comment: request.comment } : {}),
  };
  const signed = signedDecision(decision, key, {
    namespace: rb.target.namespace,
    runbook: id,
    run: described.runId,
    gate: request.gate,
  });
  printLine(JSON.stringify(signed));
}
