import { execFileSync } from 'node:child_process';
import type { Decision } from '../../../workflows/contracts';
import { SIGNATURE_NAMESPACE } from '../../../workflows/signing/ssh-signature';
import { decisionStatement, type DecisionStatement } from '../../../workflows/signing/statement';
import { UsageError } from '../../errors';

/**
 * `statement` signed with `key` by `ssh-keygen -Y sign -n mesh-runbook` (a private key file, or a .pub whose
 * key ssh-agent holds), the armored signature; a key it cannot sign with is one sentence, exit 2.
 */
export function signWithKey(key: string, statement: string, what = 'the decision'): string {
  try {
    return execFileSync('ssh-keygen', ['-q', '-Y', 'sign', '-n', SIGNATURE_NAMESPACE, '-f', key], {
      input: statement,
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'pipe'],
    });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    const why = stderr.trim().split('\n').at(-1) || (error instanceof Error ? error.message : String(error));
    throw new UsageError(
      `--key ${key} could not sign ${what}: ${why}.`,
      'Give a private key file, or a .pub whose key ssh-agent holds (`ssh-add -l` lists them).',
    );
  }
}

/** The decision with its signature over where it goes (`at`) and when, made now with `key`. */
export function signedDecision(
  decision: Decision,
  key: string,
  at: Omit<DecisionStatement, 'action' | 'evidence' | 'signedAt'>,
): Decision {
  const signedAt = new Date().toISOString();
  const statement = decisionStatement({
    ...at,
    action: decision.action,
    evidence: decision.evidence ?? '',
    signedAt,
  });
  return { ...decision, signature: signWithKey(key, statement), signedAt };
}
