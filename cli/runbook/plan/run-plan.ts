import { ConfigError, loadConfig } from '../../../config';
import { resolveRunbookStateDir } from '../../../activities/data';
import {
  makePlan,
  nodeOutcomeLines,
  planAsLines,
  planReaderFrom,
  type PlanRequest,
} from '../../../client/plan';
import { readThroughNodeWorkers } from '../../../client/plan/node-reads';
import { depsFromConfig } from '../../../worker/deps';
import type { PlanReport } from '../../../workflows/plan-report';
import { UsageError } from '../../errors';
import { withClient } from '../client';
import { taskQueueFromEnv } from '../options';

/**
 * The plan of a runbook on the node as it is now, read through the worker's own config (mesh adapter,
 * Docker endpoints) and activities: with the local mesh, called directly (no worker, no Temporal); with a
 * real controller (the command adapter), each node's disk and engine are read by that node's own worker.
 * Nothing is changed either way.
 */
export async function planFor(request: PlanRequest): Promise<PlanReport> {
  let config, deps;
  try {
    config = loadConfig();
    deps = depsFromConfig(config);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message, error.suggestion);
    throw error;
  }
  const reader = planReaderFrom({ ...deps, stateDir: deps.stateDir ?? resolveRunbookStateDir() });
  if (config.mesh.adapter !== 'command') return makePlan(reader, request);
  return withClient(({ client }) =>
    makePlan(readThroughNodeWorkers(reader, client, taskQueueFromEnv()), request),
  );
}

export { nodeOutcomeLines, planAsLines };
