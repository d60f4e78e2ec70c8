import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type * as workflows from '../../../workflows';
import { runbookWorkflowId, type RunbookKind } from '../../../workflows/contracts';
import { renderPlan } from '../../../workflows/plans';
import { MESH_KIND, MESH_MODULE, MESH_NODE, MESH_PHASE } from '../../../workflows/search-attributes';
import { UsageError } from '../../errors';
import { errorColour, printJson, printJsonLine, printLine } from '../../output';
import type { RunbookClient } from '../client';
import { exitForPhase } from '../exit-codes';
import { concludeFollow, follow } from '../follow/follow';
import { observe } from '../observe';
import { busySentence, whereItIs } from '../render';

export interface StartRequest<I> {
  kind: RunbookKind;
  /** workflowTypeOf(kind); typed as a workflow the worker registers, so the compiler checks the name. */
  workflowType: keyof typeof workflows;
  node: string;
  module: string;
  input: I;
  /** One line for the Temporal Web UI's list and the run's page. */
  summary: string;
  /** The run's parameters, in markdown; the kind's plan follows them in the Web UI's static details. */
  details: string;
  detach: boolean;
  json: boolean;
}

/**
 * Starts the node's runbook (its id is the node's, so a second one is refused by Temporal itself), then
 * follows it unless detached. Sets the exit code from where the runbook stands.
 */
export async function startRunbook<I>(rb: RunbookClient, request: StartRequest<I>): Promise<void> {
  const id = runbookWorkflowId(request.node);
  try {
    await rb.client.workflow.start(request.workflowType, {
      workflowId: id,
      taskQueue: rb.taskQueue,
      args: [request.input],
      workflowIdConflictPolicy: 'FAIL',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      staticSummary: request.summary,
      staticDetails: `${request.details}\n\n${renderPlan(request.kind)}`,
      // Set at the start, so lists filter on them before the runbook's first workflow task upserts its own.
      typedSearchAttributes: [
        { key: MESH_NODE, value: request.node },
        { key: MESH_MODULE, value: request.module },
        { key: MESH_KIND, value: request.kind },
        { key: MESH_PHASE, value: 'running' },
      ],
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) throw await busy(rb, id, request.node);
    throw error;
  }
  if (!(await rb.hasWorker(rb.taskQueue).catch(() => true))) {
    process.stderr.write(
      `${errorColour.yellow('note:')} no worker polls task queue ${rb.taskQueue} yet; ${id} begins when one runs (\`mesh runbook worker\` or \`mesh runbook dev\`).\n`,
    );
  }
  if (request.detach) {
    if (request.json) printJson({ id, kind: request.kind, taskQueue: rb.taskQueue, input: request.input });
    else {
      printLine(`started ${id} (${request.kind} on ${request.node}) on task queue ${rb.taskQueue}`);
      printLine(`follow it with \`mesh runbook watch ${id}\``);
    }
    return;
  }
  if (request.json)
    printJsonLine({
      event: 'started',
      id,
      kind: request.kind,
      taskQueue: rb.taskQueue,
      input: request.input,
    });
  else printLine(`started ${id} (${request.kind} on ${request.node})`);
  const end = await follow(rb, id, { stopWhenWaiting: true, quiet: false, json: request.json });
  concludeFollow(end, request.json, exitForPhase);
}

async function busy(rb: RunbookClient, id: string, node: string): Promise<UsageError> {
  const running = await observe(rb, id);
  const where = running.status
    ? whereItIs(running.status)
    : `at an unknown step (${running.unanswered ?? 'no worker answered'})`;
  return new UsageError(
    busySentence(id, running.kind, node, running.status?.startedBy ?? running.startedBy, where),
    `Follow it with \`mesh runbook watch ${id}\`, or stop it with \`mesh runbook abort ${id}\`.`,
  );
}
