/** What a runbook's start signature covers: where it starts, which runbook, on what input, by whom, when. */
export interface StartStatement {
  namespace: string;
  /** The workflow id it starts under: `runbook-novox`, `runbook-fleet-route-proxy`. */
  runbook: string;
  kind: string;
  node: string;
  module: string;
  startedBy: string;
  /** inputHash of the input it starts with (./input-hash.ts). */
  input: string;
  signedAt: string;
}

/** The exact text a start's SSH signature signs, one field a line, as decisions are (./statement.ts). */
export function startStatement(s: StartStatement): string {
  return [
    'mesh-runbook start v1',
    `namespace ${s.namespace}`,
    `runbook ${s.runbook}`,
    `kind ${s.kind}`,
    `node ${s.node}`,
    `module ${s.module}`,
    `started-by ${s.startedBy}`,
    `input ${s.input}`,
    `signed-at ${s.signedAt}`,
    '',
  ].join('\n');
}
