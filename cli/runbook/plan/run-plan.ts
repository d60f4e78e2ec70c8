import { ConfigError, loadConfig } from '../../../config';
import { resolveRunbookStateDir } from '../../../activities/data';
import { nodeOutcomeLines, planAsLines, planReaderFrom, type PlanReader } from '../../../client/plan';
import { readThroughNodeWorkers } from '../../../client/plan/node-reads';
import { depsFromConfig } from '../../../worker/deps';
import type { PlanReport } from '../../../workflows/plan-report';
import { firstIssueText } from '../../../base/zod-issue';
import { UsageError } from '../../errors';
import { OPERATOR_KINDS, operatorKind, type OperatorRegistry } from '../operator-kinds';
import { withClient } from '../client';
import { taskQueueFromEnv } from '../options';

/**
 * The plan of a runbook on the node as it is now, read through the worker's own config (mesh adapter,
 * Docker endpoints) and activities: with the local mesh, called directly (no worker, no Temporal); with a
 * real controller (the command adapter), each node's disk and engine are read by that node's own worker.
 * Nothing is changed either way.
 */
export async function planFor(
  kind: string,
  input: unknown,
  { asFleet = false, registry = OPERATOR_KINDS }: PlanOptions = {},
): Promise<PlanReport> {
  const makePlan = plannerOf(kind, input, { asFleet, registry });
  let config, deps;
  try {
    config = loadConfig();
    deps = depsFromConfig(config);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message, error.suggestion);
    throw error;
  }
  const reader = planReaderFrom({ ...deps, stateDir: deps.stateDir ?? resolveRunbookStateDir() });
  if (config.mesh.adapter !== 'command') return makePlan(reader);
  return withClient(({ client }) => makePlan(readThroughNodeWorkers(reader, client, taskQueueFromEnv())));
}

/** The kind's planner over its input, parsed by the kind's own schema: an input it refuses is no plan. */
export function plannerOf(
  kind: string,
  input: unknown,
  { asFleet = false, registry = OPERATOR_KINDS }: PlanOptions = {},
): (reader: PlanReader) => Promise<PlanReport> {
  const operator = operatorKind(kind, registry);
  if (!operator)
    throw new UsageError(`There is no runbook kind "${kind}" to plan.`, 'See `mesh runbook plan --help`.');
  const parsed = operator.descriptor.input.safeParse(input);
  if (!parsed.success) throw new UnplannableInput(kind, firstIssueText(parsed.error, `the ${kind} input`));
  const planner = operator.planner();
  return (reader) => planner(reader, parsed.data as never, asFleet);
}

export interface PlanOptions {
  /** The nodes move as a fleet, node by node: once the spec mounts B, a node on B already is left out. */
  asFleet?: boolean;
  registry?: OperatorRegistry;
}

/** A runbook's input its kind's schema refuses: no plan can be made of it, and no runbook may start on it. */
export class UnplannableInput extends UsageError {
  constructor(kind: string, problem: string) {
    super(
      `The ${kind} input does not parse (${problem}): no plan can be made of it and no runbook starts on it.`,
      `Check the options against \`mesh runbook start ${kind} --help\`.`,
    );
  }
}

export { nodeOutcomeLines, planAsLines };
