/**
 * Steps both runbooks have, declared once: each runbook says what its preflight and gate check. No workflow
 * code here: the plans (and the CLI and config that read them) import it without the runbooks' code.
 */

export const LOCKS = 'locks';
export const PREFLIGHT = 'preflight';

export const LOCKS_STEP = {
  name: LOCKS,
  kind: 'action',
  does: 'hold every node and module the runbook touches: another runbook touching one of them waits for this one',
} as const;
export const PUSH = 'push';
export const GATE_APPLY = 'gate-apply';

export function preflightStep<const D extends string>(does: D) {
  return { name: PREFLIGHT, kind: 'action', does } as const;
}

export const PUSH_STEP = {
  name: 'push',
  kind: 'action',
  does: 'push the node and keep the receipt',
} as const;

export function applyGateStep<const A extends readonly string[]>(does: string, actions: A) {
  return { name: GATE_APPLY, kind: 'gate', does, actions } as const;
}
