import type { WorkflowHandle } from '@temporalio/client';
import { startEdgeFlipFleet } from '../../client/start-fleet';
import { seedEdgeFleet } from '../../mesh/local/scenarios/edge-fleet';
import { edgeFlipFleet } from '../../workflows';
import { runbookWorkflowId, statusQuery, type RunbookStatus } from '../../workflows/contracts';
import { FLEET_NODE, type EdgeFlipFleetInputArg } from '../../workflows/fleet/contracts';
import type { RunbookWorld } from './runbook-world';
import { decide, FAST_TIMINGS, freePort, statusWhen } from './runbooks';

/** `count` free ports, no two alike: the kernel may hand a port just closed out again (a fleet then failed). */
async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

/** Seeds `count` nodes of `world` running caddy, those at `heldAt` with route-proxy's leftovers; the fleet's input. */
export async function seedFleet(
  world: RunbookWorld,
  options: { count: number; heldAt?: number[]; waveSize?: number },
): Promise<EdgeFlipFleetInputArg> {
  const seeds = [];
  const ports = await distinctFreePorts(options.count * 2);
  for (let i = 0; i < options.count; i++)
    seeds.push({
      node: world.nodeName(),
      publicPort: ports[2 * i] as number,
      stagingPort: ports[2 * i + 1] as number,
      leftovers: options.heldAt?.includes(i) ?? false,
    });
  const seeded = await seedEdgeFleet(world.mesh, {
    predecessor: 'caddy',
    successor: 'route-proxy',
    nodes: seeds,
  });
  return {
    module: 'route-proxy',
    runbooks: seeded.map((s) => ({
      ...s,
      module: 'route-proxy',
      predecessor: 'caddy',
      startedBy: 'alice',
      timings: FAST_TIMINGS,
    })),
    waveSize: options.waveSize ?? 1,
    startedBy: 'alice',
  };
}

export function startFleet(world: RunbookWorld, input: EdgeFlipFleetInputArg) {
  world.owns(`${FLEET_NODE}-${input.module}`);
  return startEdgeFlipFleet(world.client, edgeFlipFleet, input, { taskQueue: world.taskQueue });
}

/** The fleet's status once it waits for a node (its gate is the node's name) or has ended. */
export function fleetWaitsOrEnds(fleet: WorkflowHandle, timeoutMs = 120_000): Promise<RunbookStatus> {
  return statusWhen(
    fleet,
    (s) => s.waiting !== null || ['completed', 'failed', 'aborted', 'rolled-back'].includes(s.phase),
    timeoutMs,
  );
}

/** The node's own runbook's status, as `mesh runbook status <node>` asks it. */
export function nodeStatus(world: RunbookWorld, node: string): Promise<RunbookStatus> {
  return world.client.workflow.getHandle(runbookWorkflowId(node)).query(statusQuery);
}

/** Whether the node's runbook was ever started (Temporal knows its id). */
export async function nodeStarted(world: RunbookWorld, node: string): Promise<boolean> {
  return world.client.workflow
    .getHandle(runbookWorkflowId(node))
    .describe()
    .then(
      () => true,
      () => false,
    );
}

/**
 * The operator's way forward at a node's wait: take, approve, else look again (a container slow to turn
 * healthy on a loaded machine waits at a gate for recheck).
 */
export function forward(actions: readonly string[]): string {
  return ['take', 'approve', 'recheck', 'retry'].find((a) => actions.includes(a)) ?? 'abort';
}

/**
 * Decides on the node the fleet waits for, as an operator does: `take` where offered, else `approve` (by
 * bob, not alice who started it: four eyes); then waits until the fleet no longer waits at that wait.
 */
export async function answerNode(world: RunbookWorld, fleet: WorkflowHandle, node: string): Promise<string> {
  const before = await fleet.query(statusQuery);
  const own = world.client.workflow.getHandle(runbookWorkflowId(node));
  const waiting = (await statusWhen(own, (s) => s.waiting !== null)).waiting;
  const action = forward(waiting?.actions ?? []);
  await decide(own, action, undefined, 'bob');
  await statusWhen(fleet, (s) => s.waiting?.since !== before.waiting?.since);
  return action;
}
