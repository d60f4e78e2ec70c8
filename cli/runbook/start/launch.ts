import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { lastRunOf, needsClearing } from '../../../activities/runbook/last-run';
import { runbookKindOf, startRunbook, type RunbookWorkflow } from '../../../client/start-runbook';
import { runbookWorkflowId } from '../../../workflows/contracts';
import { EXIT, UsageError } from '../../errors';
import { PREFLIGHT } from '../../../workflows/runbook/step-declarations';
import { errorColour, printJson, printJsonLine, printLine } from '../../output';
import { withClient, type RunbookClient } from '../client';
import { exitForPhase } from '../exit-codes';
import { concludeFollow, follow } from '../follow/follow';
import { observe } from '../observe';
import { needsClearingRefusal } from '../clear/sentences';
import { busySentence, whereItIs } from '../render';
import { showPlanAndConfirm } from './confirm-plan';
import { refuseMarkedNodes } from './refuse-marked';
import { startSigner } from './start-signer';

export interface LaunchOptions {
  /** Start it and return; do not follow it. */
  detach: boolean;
  json: boolean;
  /** Start without asking on a terminal (the plan is shown either way). */
  yes?: boolean;
  /** The SSH key that signs the start (--key, default $MESH_SIGNING_KEY). */
  key?: string | undefined;
}

/**
 * `mesh runbook start <kind>`: starts the node's runbook by its workflow function (a second one on the node
 * is refused by Temporal, and named here), then follows it unless detached. Sets the exit code from where
 * the runbook stands.
 */
export async function launch<W extends RunbookWorkflow>(
  workflow: W,
  input: Parameters<W>[0],
  options: LaunchOptions,
): Promise<void> {
  await withClient((rb) => launchOn(rb, workflow, input, options), { operator: input.startedBy });
}

async function launchOn<W extends RunbookWorkflow>(
  rb: RunbookClient,
  workflow: W,
  input: Parameters<W>[0],
  options: LaunchOptions,
): Promise<void> {
  const kind = runbookKindOf(workflow);
  const id = runbookWorkflowId(input.node);
  const signStart = startSigner(options.key, kind);
  // A node runs one runbook at a time: say so before showing a plan that could not start.
  if (await isRunning(rb, id)) throw await busy(rb, id, input.node);
  // The runbook itself refuses too (NodeNeedsClearing); refused here, nothing starts and nothing is recorded.
  await refuseMarkedNodes(rb, [input.node, ...('nodes' in input ? (input.nodes ?? []) : [])]);
  const last = await lastRunOf(rb.client, id);
  if (needsClearing(last)) throw needsClearingRefusal(input.node, last);
  const plan = await showPlanAndConfirm(kind, input, { yes: options.yes ?? false, json: options.json });
  try {
    await startRunbook(rb.client, workflow, input, {
      taskQueue: rb.taskQueue,
      prediction: plan,
      ...(signStart ? { signStart } : {}),
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) throw await busy(rb, id, input.node);
    throw error;
  }
  if (!(await rb.hasWorker(rb.taskQueue).catch(() => true))) {
    process.stderr.write(
      `${errorColour.yellow('note:')} no worker polls task queue ${rb.taskQueue} yet; ${id} begins when one runs (\`mesh runbook worker\` or \`mesh runbook dev\`).\n`,
    );
  }
  const started = { id, kind, taskQueue: rb.taskQueue, input, plan };
  if (options.detach) {
    if (options.json) printJson(started);
    else {
      printLine(`started ${id} (${kind} on ${input.node}) on task queue ${rb.taskQueue}`);
      printLine(`follow it with \`mesh runbook watch ${id}\``);
    }
    return;
  }
  if (options.json) printJsonLine({ event: 'started', ...started });
  else printLine(`started ${id} (${kind} on ${input.node})`);
  const end = await follow(rb, id, { stopWhenWaiting: true, quiet: false, json: options.json });
  // The node changed between the plan and the preflight: refused all the same, nothing changed (exit 2).
  const refused = end.status?.steps.some((step) => step.name === PREFLIGHT && step.state === 'failed');
  concludeFollow(end, options.json, (phase) => (refused ? EXIT.usage : exitForPhase(phase)));
}

async function isRunning(rb: RunbookClient, id: string): Promise<boolean> {
  try {
    return (await rb.client.workflow.getHandle(id).describe()).status.name === 'RUNNING';
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/** The sentence that refuses a second run on a node: which runbook runs there, where it is, who started it. */
export async function busy(rb: RunbookClient, id: string, node: string): Promise<UsageError> {
  const running = await observe(rb, id);
  const where = running.status
    ? whereItIs(running.status)
    : `at an unknown step (${running.unanswered ?? 'no worker answered'})`;
  return new UsageError(
    busySentence(id, running.kind, node, running.status?.startedBy ?? running.startedBy, where),
    `Follow it with \`mesh runbook watch ${id}\`, or stop it with \`mesh runbook abort ${id}\`.`,
  );
}
