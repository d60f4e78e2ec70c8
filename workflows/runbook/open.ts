import {
  ApplicationFailure,
  patched,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { FAILURE, runbookWorkflowId, statusQuery, type RunbookStatus } from '../contracts';
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
  const id = workflowInfo().workflowId;
  // The node lock is the workflow id: a runbook under any other id would run beside the node's own.
  if (plan.revision >= 2 && id !== runbookWorkflowId(node))
    throw ApplicationFailure.nonRetryable(
      `A runbook on ${node} runs as ${runbookWorkflowId(node)}, not ${id}: one runbook per node at a time.`,
      FAILURE.invalidInput,
    );
  const progress = new Progress({ id, kind: plan.kind, node, module, startedBy }, listedSteps(plan));
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
  // Revision 2: an undo that keeps failing waits for the operator instead of ending the rollback at once.
  const undo = new Compensations(progress, plan.revision >= 2 ? decisions : undefined);
  try {
    return await script(new Runbook(plan, progress, decisions, undo));
  } catch (error) {
    throw await finish(error, progress, undo);
  }
}
