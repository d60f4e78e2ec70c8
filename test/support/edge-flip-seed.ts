import { seedEdgeScenario, type EdgeScenarioOptions } from '../../mesh/local/scenarios/edge-flip-incident';
import type { EdgeFlipInputArg } from '../../workflows/contracts';
import type { Seedable } from './local-world';
import { FAST_TIMINGS, freePort } from './runbooks';

export interface EdgeFlipSeed {
  /** A node of the world's the test named already; a fresh one by default. */
  node?: string;
  /** The incident: the successor's leftovers are held until take, so the runbook waits at gate-apply. */
  leftovers?: boolean;
  successorFault?: EdgeScenarioOptions['successorFault'];
  startedBy?: string;
  predecessor?: string;
  successor?: string;
}

/** Seeds a node of `world` (caddy serving, route-proxy defined) and returns its edge flip's input. */
export async function seedEdgeFlip(world: Seedable, seed: EdgeFlipSeed = {}): Promise<EdgeFlipInputArg> {
  const node = seed.node ?? world.nodeName();
  const predecessor = seed.predecessor ?? 'caddy';
  const module = seed.successor ?? 'route-proxy';
  const seeded = await seedEdgeScenario(world.mesh, {
    node,
    predecessor,
    successor: module,
    publicPort: await freePort(),
    stagingPort: await freePort(),
    leftovers: seed.leftovers ?? false,
    successorFault: seed.successorFault,
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
