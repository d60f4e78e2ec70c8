import {
  seedEdgeScenario,
  successorSpec,
  type EdgeScenarioOptions,
} from '../../mesh/local/scenarios/edge-flip-incident';
import assert from 'node:assert/strict';
import { LocalMesh } from '../../mesh/local';
import type { ModuleSpecInput } from '../../mesh/schemas';
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

/**
 * Seeds `node` as seedEdgeFlip does, on the local mesh whose state is in `stateDir` (a `mesh runbook dev`'s
 * or a config's own, not a test world's). Its containers are the caller's to remove (removeNodeContainers).
 */
export async function seedEdgeFlipIn(stateDir: string, node: string): Promise<EdgeFlipInputArg> {
  const mesh = new LocalMesh({ stateDir });
  const noImages = () => assert.fail('an edge flip seeds no image of its own');
  return seedEdgeFlip({ mesh, nodeName: () => node, imageName: noImages }, { node });
}

/** The ports the seeded scenario serves the public names and the successor's staging page on. */
export function portsOf(input: EdgeFlipInputArg): Pick<EdgeScenarioOptions, 'publicPort' | 'stagingPort'> {
  const port = (address: string) => Number(new URL(address).port);
  return { publicPort: port(input.publicAddress), stagingPort: port(input.successorAddress) };
}

/** The successor answers on its staging port but never takes the public port: public names fail after the stop. */
export function stagingOnlySuccessor(
  ports: Pick<EdgeScenarioOptions, 'publicPort' | 'stagingPort'>,
): ModuleSpecInput {
  const spec = successorSpec('route-proxy', ports);
  const serve = `echo "served by route-proxy" > /www/index.html && exec httpd -f -p 127.0.0.1:${ports.stagingPort} -h /www`;
  return {
    ...spec,
    containers: spec.containers.map((c) => (c.name === 'edge' ? { ...c, command: ['sh', '-c', serve] } : c)),
  };
}

/** `edge-flip` and its options for a seeded node, as an operator types them after `start` or `plan`. */
export function edgeFlipArgs(input: EdgeFlipInputArg): string[] {
  return [
    'edge-flip',
    '--node',
    input.node,
    '--module',
    input.module,
    '--predecessor',
    input.predecessor,
    ...input.publicNames.flatMap((name) => ['--public-name', name]),
    '--public-address',
    input.publicAddress,
    '--successor-address',
    input.successorAddress,
    ...(input.successorMarker ? ['--successor-marker', input.successorMarker] : []),
    ...(input.predecessorMarker ? ['--predecessor-marker', input.predecessorMarker] : []),
  ];
}
