import { setTimeout } from 'node:timers/promises';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { lastRunOf, needsClearing } from '../../../activities/runbook/last-run';
import { inFlightSentence, isLeft, leftWhat, readNodeMark } from '../../../activities/runbook/node-marks';
import { markSourceOf } from '../../../activities/runbook/node-marks-sdk';
import { startClearance } from '../../../client/start-clearance';
import { ClearNodeInput } from '../../../workflows/clear-node';
import type { Decision } from '../../../workflows/contracts';
import { nodeMarkId } from '../../../workflows/node-mark-contracts';
import { firstIssue } from '../../../base/zod-issue';
import { UsageError } from '../../errors';
import { printJson, printLine } from '../../output';
import { forTerminal } from '../../terminal-text';
import { withClient, type RunbookClient } from '../client';
import { load } from '../lazy';
import { whoDecided } from '../render-gate';
import { busy } from '../start/launch';
import { nothingToClear } from './sentences';

export interface ClearRequest {
  /** The node's runbook id (`runbook-<node>`). */
  id: string;
  reason: string;
  by: string;
  identity: NonNullable<Decision['identity']>;
  json: boolean;
}

const RESULT_MS = 30_000;
const MARK_POLL_MS = 200;

/**
 * `mesh runbook clear`: checks that the node is left marked by a runbook that did not end cleanly (or, from
 * before marks were durable, that its last run ended with its rollback failed), then runs the node's
 * clearance under its runbook id (so never beside a runbook there), which clears the mark, and prints who
 * cleared it and why.
 */
export async function clear(request: ClearRequest): Promise<void> {
  const node = request.id.replace(/^runbook-/, '');
  const input = clearanceInput(node, request);
  await withClient(
    async (rb) => {
      const last = await lastRunOf(rb.client, request.id);
      if (last.kind === 'runbook' && last.status === 'RUNNING') throw await busy(rb, request.id, node);
      const mark = await readNodeMark(markSourceOf(rb.client), node);
      if (mark.kind === 'in-flight')
        throw new UsageError(
          inFlightSentence(mark),
          `Clear ${node} only if that runbook ends without ending cleanly.`,
        );
      if (!isLeft(mark) && !needsClearing(last)) throw nothingToClear(node, last);
      if (!(await rb.hasWorker(rb.taskQueue))) {
        throw new Error(
          `No worker polls task queue ${rb.taskQueue}, so the clearance of ${node} cannot be recorded now; start one with \`mesh runbook worker\` and clear again.`,
        );
      }
      let handle;
      try {
        handle = await startClearance(rb.client, load.workflows().clearNode, input, {
          taskQueue: rb.taskQueue,
        });
      } catch (error) {
        if (error instanceof WorkflowExecutionAlreadyStartedError) throw await busy(rb, request.id, node);
        throw error;
      }
      const cleared = await rb.within(RESULT_MS, () => handle.result());
      if (isLeft(mark) && !(await markClosed(rb, node)))
        throw new Error(
          `The clearance of ${node} is recorded, but its mark (${nodeMarkId(node)}) did not close within ${RESULT_MS / 1000} s; is a worker polling ${rb.taskQueue}? Clear again once one runs.`,
        );
      const record = {
        id: request.id,
        runId: handle.firstExecutionRunId,
        node,
        ...cleared,
        identity: request.identity,
      };
      if (request.json) return printJson(record);
      const shown = forTerminal(record);
      printLine(`cleared ${node}: by ${whoDecided(shown)} at ${shown.at}: ${shown.reason}`);
      const what = isLeft(mark)
        ? leftWhat(mark)
        : `the last runbook on ${node} (${last.kind === 'runbook' ? `${last.type}, run ${last.runId}` : 'unknown'}) ended with its rollback failed`;
      printLine(`${forTerminal(what)}; runbooks may start on ${node} again`);
    },
    { operator: request.by },
  );
}

/** Waits for the node's mark to close once the clearance signalled it; a node with none is closed. */
async function markClosed(rb: RunbookClient, node: string): Promise<boolean> {
  const handle = rb.client.workflow.getHandle(nodeMarkId(node));
  const deadline = Date.now() + RESULT_MS;
  for (;;) {
    const status = await handle.describe().then(
      (described) => described.status.name,
      (error: unknown) => {
        if (error instanceof WorkflowNotFoundError) return 'NOT_FOUND';
        throw error;
      },
    );
    if (status !== 'RUNNING') return true;
    if (Date.now() >= deadline) return false;
    await setTimeout(MARK_POLL_MS);
  }
}

/** The clearance's input, checked by the workflow's own schema before anything starts. */
function clearanceInput(node: string, request: ClearRequest): ClearNodeInput {
  const parsed = ClearNodeInput.safeParse({ node, by: request.by, reason: request.reason });
  if (parsed.success) return parsed.data;
  const { path, problem } = firstIssue(parsed.error);
  const option = { node: '<node>', by: '--as', reason: '--reason' }[String(path[0])] ?? 'the input';
  throw new UsageError(
    `${option} is invalid: ${problem}.`,
    'Say what you found on the node and what you did, e.g. --reason "restarted caddy by hand, route-proxy unassigned".',
  );
}
