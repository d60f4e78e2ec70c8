import type { ReceiptEvidence } from '../verdict';
import { act } from './activities';
import type { StepName, RunbookPlan } from './plan';
import type { Runbook } from './runbook';
import { PUSH } from './step-declarations';

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
