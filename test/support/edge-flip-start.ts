import type { Client, WorkflowHandle } from '@temporalio/client';
import type { LocalMesh } from '../../mesh/local';
import { seedEdgeScenario } from '../../mesh/local/scenarios/edge-flip-incident';
import { runbookWorkflowId, type EdgeFlipInputArg } from '../../workflows/contracts';
import { renderPlan } from '../../workflows/plans';
import { FAST_TIMINGS, freePort } from './runbooks';

export interface EdgeFlipSeed {
  /** The incident: the successor's leftovers are held until take, so the runbook waits at gate-apply. */
  leftovers?: boolean;
  startedBy?: string;
  predecessor?: string;
  successor?: string;
}

/** Seeds `node` on the local mesh (caddy serving, route-proxy defined) and returns its edge flip's input. */
export async function seededEdgeFlipInput(
  mesh: LocalMesh,
  node: string,
  seed: EdgeFlipSeed = {},
): Promise<EdgeFlipInputArg> {
  const predecessor = seed.predecessor ?? 'caddy';
  const module = seed.successor ?? 'route-proxy';
  const seeded = await seedEdgeScenario(mesh, {
    node,
    predecessor,
    successor: module,
    publicPort: await freePort(),
    stagingPort: await freePort(),
    leftovers: seed.leftovers ?? false,
  });
  return {
    node,
    module,
    predecessor,
    ...seeded,
    startedBy: seed.startedBy ?? 'alice',
    timings: FAST_TIMINGS,
  };
}

/** Starts the edge flip as `mesh runbook start` does: id runbook-<node>, a summary and the plan for the UI. */
export function startEdgeFlip(
  client: Client,
  taskQueue: string,
  input: EdgeFlipInputArg,
): Promise<WorkflowHandle> {
  return client.workflow.start('edgeFlip', {
    args: [input],
    taskQueue,
    workflowId: runbookWorkflowId(input.node),
    staticSummary: `edge-flip on ${input.node}: ${input.predecessor} → ${input.module} (started by ${input.startedBy})`,
    staticDetails: renderPlan('edge-flip'),
  });
}
