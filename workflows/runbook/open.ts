import { setHandler, workflowInfo } from '@temporalio/workflow';
import { statusQuery, type RunbookKind } from '../contracts';
import { act } from './activities';
import { Compensations } from './compensation';
import { Decisions } from './decisions';
import { Progress } from './progress';
import { step } from './steps';

/** What every runbook starts with: its status query, the decision Update, a compensation stack, steps. */
export function openRunbook(
  identity: { kind: RunbookKind; node: string; module: string; startedBy: string },
  plan: readonly string[],
) {
  const progress = new Progress({ id: workflowInfo().workflowId, ...identity }, plan);
  setHandler(statusQuery, () => progress.status);
  const decisions = new Decisions(progress);
  const undo = new Compensations(progress);
  const run = <T>(name: string, fn: () => Promise<T>, note?: (result: T) => string) =>
    step(progress, decisions, name, fn, note);
  const push = () =>
    run(
      'push',
      () => act.pushNode({ node: identity.node }),
      (r) =>
        r.readable ? `sent ${r.value.sent} resource(s) as ${r.value.pushId}` : `unreadable: ${r.error}`,
    );
  return { progress, decisions, undo, ctx: { progress, decisions }, run, push };
}
