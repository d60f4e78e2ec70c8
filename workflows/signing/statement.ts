/** What one decision's signature covers: where it is sent, which gate, which action, on what evidence, when. */
export interface DecisionStatement {
  namespace: string;
  runbook: string;
  run: string;
  gate: string;
  action: string;
  evidence: string;
  /** When it was signed (ISO 8601, UTC): a signature older than the policy allows is refused. */
  signedAt: string;
}

/**
 * The exact text a decision's SSH signature signs, one field a line, so an operator can sign it by hand:
 * `mesh runbook sign` prints it, and `ssh-keygen -Y sign -n mesh-runbook -f key` signs it from stdin.
 */
export function decisionStatement(s: DecisionStatement): string {
  return [
    'mesh-runbook decision v1',
    `namespace ${s.namespace}`,
    `runbook ${s.runbook}`,
    `run ${s.run}`,
    `gate ${s.gate}`,
    `action ${s.action}`,
    `evidence ${s.evidence}`,
    `signed-at ${s.signedAt}`,
    '',
  ].join('\n');
}
