import { ConfigError } from '../../../config';
import { resolveRunbookStateDir } from '../../../activities/data';
import {
  makePlan,
  nodeOutcomeLines,
  planAsLines,
  planReaderFrom,
  type PlanRequest,
} from '../../../client/plan';
import { depsFromEnv } from '../../../worker/deps';
import type { PlanReport } from '../../../workflows/plan-report';
import { UsageError } from '../../errors';

/**
 * The plan of a runbook on the node as it is now, read through the worker's own config (mesh adapter,
 * Docker endpoints) and activities called directly: no worker, no Temporal, nothing changed.
 */
export async function planFor(request: PlanRequest): Promise<PlanReport> {
  let deps;
  try {
    deps = depsFromEnv();
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message, error.suggestion);
    throw error;
  }
  const reader = planReaderFrom({ ...deps, stateDir: deps.stateDir ?? resolveRunbookStateDir() });
  return makePlan(reader, request);
}

export { nodeOutcomeLines, planAsLines };
