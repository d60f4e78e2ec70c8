import { patched, setCurrentDetails, setHandler, workflowInfo } from '@temporalio/workflow';
import { statusQuery, type RunbookKind } from '../contracts';
import { logContext } from '../interceptors';
import { RunbookPolicy } from '../policy';
import { act } from './activities';
import { Compensations } from './compensation';
import { Decisions } from './decisions';
import { renderDetails } from './details';
import { Progress } from './progress';
import { step } from './steps';
import { searchAttributePublisher } from './visibility';

/**
 * What every runbook starts with: its status query, the Web UI's live details and search attributes, the
 * worker's decision policy, the decision Update, a compensation stack and steps.
 */
export async function openRunbook(
  identity: { kind: RunbookKind; node: string; module: string; startedBy: string },
  plan: readonly string[],
) {
  const progress = new Progress({ id: workflowInfo().workflowId, ...identity }, plan);
  setHandler(statusQuery, () => progress.status);
  // Runbooks started before decisions carried evidence replay without policy, reminders or search attributes.
  const operatorUi = patched('operator-ui');
  const searchAttributes = operatorUi ? searchAttributePublisher() : () => undefined;
  progress.onChange((status) => {
    searchAttributes(status);
    setCurrentDetails(renderDetails(status));
  });
  logContext.step = 'start';
  const policy = operatorUi ? RunbookPolicy.parse(await act.runbookPolicy()) : undefined;
  const decisions = new Decisions(progress, policy);
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
