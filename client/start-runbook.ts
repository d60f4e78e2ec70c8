import type { Client, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type * as Workflows from '../workflows';
import { runbookWorkflowId, type PredictedVerdicts, type RunbookKind } from '../workflows/contracts';
import { KINDS } from '../workflows/kinds';
import { launchDescription } from './launch-description';
import type { StartSigner } from './sign-start';
import { runbookStartOptions } from './runbook-start-options';
import { predictionAsMarkdown } from './plan/render-details';
import type { PlanReport } from '../workflows/plan-report';

/** A runbook workflow function the worker registers: each kind's (workflows/kinds.ts). */
export type RunbookWorkflow = (typeof Workflows)[(typeof KINDS)[number]['workflowType']];

/** The kind of runbook a workflow function runs (`edgeFlip` → `edge-flip`). */
export function runbookKindOf(workflow: RunbookWorkflow): RunbookKind {
  const kind = KINDS.find((descriptor) => descriptor.workflowType === workflow.name)?.kind;
  if (!kind) throw new TypeError(`${workflow.name} is not a runbook workflow`);
  return kind;
}

export interface StartOptions {
  taskQueue: string;
  /**
   * What `mesh runbook plan` predicted: recorded below the plan in the static details, and each gate's
   * predicted verdict in the input, so the history keeps it and a gate that finds otherwise says so.
   */
  prediction?: PlanReport | null;
  /** Signs the start with its starter's key (mesh runbook start --key): four eyes then compare two keys. */
  signStart?: StartSigner;
}

/**
 * The one way a node's runbook starts, for the CLI, the demo, the history recorder and the tests: started by
 * its workflow function, under the node's id, with the options every runbook starts with (runbookStartOptions).
 */
export async function startRunbook<W extends RunbookWorkflow>(
  client: Client,
  workflow: W,
  input: Parameters<W>[0],
  options: StartOptions,
): Promise<WorkflowHandleWithFirstExecutionRunId<W>> {
  const kind = runbookKindOf(workflow);
  const described = launchDescription(kind, input);
  const predicted = options.prediction ? predictedVerdicts(options.prediction) : undefined;
  const sent = predicted ? { ...input, predicted } : input;
  const start = runbookStartOptions(client, {
    kind,
    input: sent,
    workflowId: runbookWorkflowId(input.node),
    node: input.node,
    summary: described.summary,
    details: [
      ...described.parameters,
      described.plan,
      ...(options.prediction ? [predictionAsMarkdown(options.prediction)] : []),
    ],
    taskQueue: options.taskQueue,
    signStart: options.signStart,
  });
  return client.workflow.start(workflow, { ...start, args: start.args as Parameters<W> });
}

/** The gates' predicted verdicts; a refused or unreached gate has no verdict to compare with. */
export function predictedVerdicts(plan: PlanReport): PredictedVerdicts | undefined {
  const gates = plan.steps.filter(
    (step) => step.kind === 'gate' && VERDICTS.includes(step.predicted as (typeof VERDICTS)[number]),
  );
  return gates.length > 0 ? Object.fromEntries(gates.map((step) => [step.name, step.predicted])) : undefined;
}

const VERDICTS = ['ok', 'held', 'drift', 'unrecreated-volume'] as const;
