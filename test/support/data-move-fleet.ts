import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { startDataPathMoveFleet } from '../../client/start-fleet';
import { containerName } from '../../docker/placement';
import { seedStoreFleet } from '../../mesh/local/scenarios/store-fleet';
import { dataPathMoveFleet } from '../../workflows';
import { FLEET_NODE, type DataPathMoveFleetInputArg } from '../../workflows/fleet/contracts';
import { FROM, TO } from './data-move';
import type { RunbookWorld } from './runbook-world';
import type { RunbookStatus } from '../../workflows/contracts';
import { FAST_TIMINGS, statusWhen } from './runbooks';

/** A module of one long-running container mounting A (`roll-out`), on `count` fresh nodes, each with data of its own. */
export async function seedModuleOnNodes(world: RunbookWorld, count: number) {
  const module = `store-${randomBytes(3).toString('hex')}`;
  const nodes = Array.from({ length: count }, () => world.nodeName());
  const roots = await seedStoreFleet(world.mesh, {
    module,
    image: world.imageName('store'),
    from: FROM,
    nodes,
  });
  return { module, nodes, roots };
}

/** A data-path-move fleet's input over those nodes, in their order (the first is the canary). */
export function moveFleetInput(
  module: string,
  nodes: readonly string[],
  rules: Partial<DataPathMoveFleetInputArg> = {},
): DataPathMoveFleetInputArg {
  return {
    module,
    from: FROM,
    to: TO,
    runbooks: nodes.map((node) => ({
      node,
      module,
      from: FROM,
      to: TO,
      startedBy: 'alice',
      timings: FAST_TIMINGS,
    })),
    startedBy: 'alice',
    ...rules,
  };
}

export function startMoveFleet(world: RunbookWorld, input: DataPathMoveFleetInputArg) {
  world.owns(`${FLEET_NODE}-${input.module}`);
  return startDataPathMoveFleet(world.client, dataPathMoveFleet, input, { taskQueue: world.taskQueue });
}

/** The fleet's status once it ended (a wait shown right after a decision is not an end). */
export function fleetEnded(fleet: WorkflowHandle, timeoutMs = 240_000): Promise<RunbookStatus> {
  return statusWhen(fleet, (s) => !['running', 'waiting'].includes(s.phase), timeoutMs);
}

/** The node's container of `module` runs and mounts exactly `path` (a host path under the node's root). */
export async function assertRunsOn(world: RunbookWorld, node: string, module: string, path: string) {
  const info = await world.engine.inspect(containerName(node, module, 'web'));
  assert.equal(info?.State.Running, true, `${node}'s container runs`);
  assert.deepEqual(
    info?.Mounts.map((m) => m.Source),
    [path],
    `${node}'s container mounts ${path}`,
  );
}
