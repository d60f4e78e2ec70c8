import type { ReceiptEvidence } from '../verdict';
import { act } from './activities';
import type { StepName, RunbookPlan } from './plan';
import type { Runbook } from './runbook';

/** Steps both runbooks have, declared once: each runbook says what its preflight and gate check. */

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

/** The push step: the node is sent everything it should hold; the receipt says what was sent. */
export function pushNode<P extends RunbookPlan>(
  rb: typeof PUSH extends StepName<P> ? Runbook<P> : never,
  node: string,
): Promise<ReceiptEvidence> {
  return rb.step(
    PUSH,
    () => act.pushNode({ node }),
    (r) => (r.readable ? `sent ${r.value.sent} resource(s) as ${r.value.pushId}` : `unreadable: ${r.error}`),
  );
}
