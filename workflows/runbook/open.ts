import { patched, setCurrentDetails, setHandler, workflowInfo } from '@temporalio/workflow';
import { statusQuery, type RunbookStatus } from '../contracts';
import { logContext } from '../interceptors';
import type { RunbookPolicy } from '../policy';
import { act } from './activities';
import { Compensations } from './compensation';
import { Decisions } from './decisions';
import { renderDetails } from './details';
import { finish } from './finish';
import { listedSteps, type RunbookPlan } from './plan';
import { Progress } from './progress';
import { Runbook } from './runbook';
import { searchAttributePublisher } from './visibility';

/**
 * Opens a runbook of `plan` and runs `script` with it: the status query, the Web UI's live details and
 * search attributes, the worker's decision policy, the decision Update and the undo stack are set up
 * first; any failure or abort runs the undo steps and ends the runbook in the phase that says what happened.
 */
export async function openRunbook<P extends RunbookPlan>(
  plan: P,
  identity: { node: string; module: string; startedBy: string },
  script: (rb: Runbook<P>) => Promise<RunbookStatus>,
): Promise<RunbookStatus> {
  const { node, module, startedBy } = identity;
  const progress = new Progress(
    { id: workflowInfo().workflowId, kind: plan.kind, node, module, startedBy },
    listedSteps(plan),
  );
  setHandler(statusQuery, () => progress.status);
  // Runbooks started before decisions carried evidence replay without policy, reminders or search attributes.
  const operatorUi = patched('operator-ui');
  const searchAttributes = operatorUi ? searchAttributePublisher() : () => undefined;
  progress.onChange((status) => {
    searchAttributes(status);
    setCurrentDetails(renderDetails(status));
  });
  logContext.step = 'start';
  // The worker parsed it from its config; the history keeps what applied.
  const policy: RunbookPolicy | undefined = operatorUi ? await act.runbookPolicy() : undefined;
  const decisions = new Decisions(progress, policy);
  const undo = new Compensations(progress);
  try {
    return await script(new Runbook(plan, progress, decisions, undo));
  } catch (error) {
    throw await finish(error, progress, undo);
  }
}
