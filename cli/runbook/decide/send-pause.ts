import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import {
  pauseUpdate,
  resumeUpdate,
  type Paused,
  type PauseRequest,
  type ResumeRequest,
} from '../../../workflows/contracts';
import { UsageError } from '../../errors';
import { orUnknown, type RunbookClient } from '../client';
import { endedRunbook, untakenDecision } from './decision';
import { sendUntilProcessed } from './unprocessed';

const UPDATE_MS = 30_000;

/** Sends `pause`; the runbook refuses it (exit 2) when it is already paused or undoing its work. */
export function sendPause(rb: RunbookClient, id: string, request: PauseRequest): Promise<Paused> {
  return send(rb, id, 'pause', (handle) => handle.executeUpdate(pauseUpdate, { args: [request] }));
}

/** Sends `resume`; refused (exit 2) when the runbook is not paused. */
export function sendResume(rb: RunbookClient, id: string, request: ResumeRequest): Promise<Paused> {
  return send(rb, id, 'resume', (handle) => handle.executeUpdate(resumeUpdate, { args: [request] }));
}

type Handle = ReturnType<RunbookClient['client']['workflow']['getHandle']>;

async function send(
  rb: RunbookClient,
  id: string,
  doing: 'pause' | 'resume',
  update: (handle: Handle) => Promise<Paused>,
): Promise<Paused> {
  const handle = rb.client.workflow.getHandle(id);
  const described = await orUnknown(id, rb.target, () => rb.within(10_000, () => handle.describe()));
  if (described.status.name !== 'RUNNING') throw endedRunbook(id, described.status.name, doing);
  if (!(await rb.hasWorker(described.taskQueue)))
    throw new Error(
      `No worker polls task queue ${described.taskQueue}, so ${id} cannot take a ${doing} now; start one with \`mesh runbook worker\` and ${doing} again.`,
    );
  try {
    return await rb.within(UPDATE_MS, () => sendUntilProcessed(() => update(handle)));
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError)
      throw new UsageError(
        error.cause?.message ?? error.message,
        `See where ${id} is with \`mesh runbook status ${id}\`.`,
      );
    if (error instanceof WorkflowUpdateRPCTimeoutOrCancelledError)
      throw new Error(untakenDecision(id, UPDATE_MS / 1000, described.taskQueue));
    if (error instanceof WorkflowNotFoundError) throw endedRunbook(id, 'meanwhile', doing);
    throw error;
  }
}
