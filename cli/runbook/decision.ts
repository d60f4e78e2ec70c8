import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import { decideUpdate, type Decision } from '../../workflows/contracts';
import { UsageError } from '../errors';
import { printJson, printLine } from '../output';
import { orUnknown, type RunbookClient } from './client';
import { observe } from './observe';
import { decisionLine, renderStatus } from './render';

const UPDATE_MS = 30_000;

/** A runbook that has ended takes no decisions and no abort: one sentence, exit 2. */
export function endedRunbook(id: string, how: string, doing: string): UsageError {
  return new UsageError(
    `Runbook ${id} has already ended (${how.toLowerCase()}); there is nothing left to ${doing}.`,
    `See how it ended with \`mesh runbook status ${id}\`.`,
  );
}

/**
 * Sends one decision as the runbook's `decide` Update. The runbook's validator is the judge: a decision it
 * does not wait for is refused with its own sentence (exit 2) and changes nothing.
 */
export async function sendDecision(
  rb: RunbookClient,
  id: string,
  decision: Decision,
  json: boolean,
): Promise<void> {
  const handle = rb.client.workflow.getHandle(id);
  const described = await orUnknown(id, rb.target, () => rb.within(10_000, () => handle.describe()));
  if (described.status.name !== 'RUNNING') throw endedRunbook(id, described.status.name, 'decide');
  if (!(await rb.hasWorker(described.taskQueue))) {
    throw new Error(
      `No worker polls task queue ${described.taskQueue}, so ${id} cannot take a decision now; start one with \`mesh runbook worker\` and decide again.`,
    );
  }
  let recorded;
  try {
    recorded = await rb.within(UPDATE_MS, () => handle.executeUpdate(decideUpdate, { args: [decision] }));
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError) {
      throw new UsageError(
        error.cause?.message ?? error.message,
        `See what ${id} waits for with \`mesh runbook status ${id}\`.`,
      );
    }
    if (error instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
      throw new Error(
        `No worker took the decision for ${id} within ${UPDATE_MS / 1000} s; check the worker on task queue ${described.taskQueue} and decide again.`,
      );
    }
    if (error instanceof WorkflowNotFoundError) throw endedRunbook(id, 'meanwhile', 'decide');
    throw error;
  }
  const next = await observe(rb, id);
  if (json) return printJson({ recorded, status: next.status ?? null });
  printLine(`recorded: ${decisionLine(recorded)}`);
  if (next.status) renderStatus(next.status, new Date()).forEach((line) => printLine(line));
}
