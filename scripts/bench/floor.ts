import { mkdir } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { probePublicNames } from '../../activities/probes';
import { LABEL } from '../../docker/labels';
import { checkModuleSpec } from '../../mesh/local/module-spec';
import { hostPathOnNode, placementOn } from '../../docker/placement';
import {
  DEMO_PUBLIC_NAMES,
  predecessorSpec,
  successorSpec,
} from '../../mesh/local/scenarios/edge-flip-incident';
import type { ModuleSpec } from '../../mesh/schemas';
import { freeLocalPort } from '../../worker/ports';
import type { BenchEnv } from './bench-env';
import type { TimedFlip } from './contenders';
import { PREDECESSOR, SUCCESSOR } from './executor';

/**
 * The floor: the shell flip's steps and checks through dockerode in this process, with the scenario's own
 * specs and the mesh's own create options, the health awaited on the engine's event stream. Nothing does
 * the flip with fewer waits.
 */
export interface FloorFlip {
  node: string;
  hostRoot: string;
  windowMs: number;
  publicAddress: string;
  stagingAddress: string;
  predecessor: ModuleSpec;
  successor: ModuleSpec;
}

const POLL_MS = 50;

async function allServed(address: string, marker: string): Promise<boolean> {
  const results = await probePublicNames({
    address,
    names: DEMO_PUBLIC_NAMES,
    expectStatus: 200,
    marker,
    timeoutMs: 5_000,
  });
  return results.every((result) => result.ok);
}

async function untilServed(address: string, marker: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await allServed(address, marker))) {
    if (Date.now() >= deadline) throw new Error(`${address} not served by ${marker} within ${timeoutMs} ms`);
    await delay(POLL_MS);
  }
}

function placement(flip: FloorFlip, spec: ModuleSpec, container: string) {
  return placementOn(flip.node, flip.hostRoot, spec.module, container);
}

/** Starts the predecessor (not timed) and returns what the flip needs. */
export async function setUpFloorFlip(env: BenchEnv, windowMs: number): Promise<FloorFlip> {
  const [publicPort, stagingPort] = [await freeLocalPort(), await freeLocalPort()];
  const flip: FloorFlip = {
    node: env.newNode('fl'),
    hostRoot: await env.dir('floor-'),
    windowMs,
    publicAddress: `http://127.0.0.1:${publicPort}`,
    stagingAddress: `http://127.0.0.1:${stagingPort}`,
    predecessor: checkModuleSpec(predecessorSpec(PREDECESSOR, publicPort)),
    successor: checkModuleSpec(successorSpec(SUCCESSOR, { publicPort, stagingPort })),
  };
  for (const container of flip.predecessor.containers)
    await env.engine.createAndStart(container, placement(flip, flip.predecessor, container.name));
  await untilServed(flip.publicAddress, `served by ${PREDECESSOR}`, 30_000);
  return flip;
}

/** Resolves when `edge` turns healthy; rejects when a successor container dies or turns unhealthy first. */
async function healthyFrom(events: NodeJS.ReadableStream, edge: string): Promise<void> {
  let buffered = '';
  for await (const chunk of events) {
    const lines = (buffered + chunk.toString()).split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines.filter((l) => l.trim() !== '')) {
      const event = JSON.parse(line) as { Action?: string; Actor?: { Attributes?: { name?: string } } };
      const name = event.Actor?.Attributes?.name ?? 'a successor container';
      if (event.Action === 'die') throw new Error(`${name} died`);
      if (name === edge && event.Action === 'health_status: unhealthy')
        throw new Error(`${edge} is unhealthy`);
      if (name === edge && event.Action === 'health_status: healthy') return;
    }
  }
  throw new Error('the Docker event stream ended');
}

/** Status, health, restart count and start time of each container, as one comparable string. */
async function readContainers(env: BenchEnv, names: string[]): Promise<string> {
  const infos = await Promise.all(names.map((name) => env.engine.inspect(name)));
  return JSON.stringify(
    infos.map((info, i) => {
      if (!info) throw new Error(`${names[i]} is gone`);
      const { Status, Health, StartedAt } = info.State;
      return [Status, Health?.Status ?? 'none', info.RestartCount, StartedAt];
    }),
  );
}

/** Creates and starts the successor's containers at once, awaiting the edge's health on the event stream. */
async function startSuccessor(env: BenchEnv, flip: FloorFlip, names: string[]): Promise<string[]> {
  const labels = [`${LABEL.node}=${flip.node}`, `${LABEL.module}=${SUCCESSOR}`];
  const events = (await env.engine.docker.getEvents({
    filters: { type: ['container'], label: labels },
  })) as NodeJS.ReadableStream & { destroy(): void };
  try {
    const healthy = healthyFrom(events, names[0] as string);
    healthy.catch(() => undefined);
    const started = await Promise.all(
      flip.successor.containers.map(async (c) => {
        const paths = c.mounts.map((m) => hostPathOnNode(flip.hostRoot, m.hostPath));
        for (const path of paths) await mkdir(path, { recursive: true });
        const info = await env.engine.createAndStart(c, placement(flip, flip.successor, c.name));
        const sources = info.Mounts.map((m) => m.Source);
        if (sources.sort().join() !== paths.sort().join()) throw new Error(`${info.Name} mounts ${sources}`);
        return info.State.StartedAt;
      }),
    );
    await healthy;
    return started;
  } finally {
    events.destroy();
  }
}

/** The timed flip; throws at the first check that fails. */
export async function flipOnFloor(env: BenchEnv, flip: FloorFlip): Promise<TimedFlip> {
  const begun = Date.now();
  const predecessor = placement(flip, flip.predecessor, 'edge').name;
  if (!(await env.engine.inspect(predecessor))?.State.Running) throw new Error(`${predecessor} does not run`);
  const successorLabels = { [LABEL.node]: flip.node, [LABEL.module]: SUCCESSOR };
  if ((await env.engine.listByLabels(successorLabels)).length > 0)
    throw new Error('a successor container exists');
  if (!(await allServed(flip.publicAddress, `served by ${PREDECESSOR}`)))
    throw new Error('the predecessor does not serve the public names');

  const names = flip.successor.containers.map((c) => placement(flip, flip.successor, c.name).name);
  const startedAt = await startSuccessor(env, flip, names);
  const stable = await readContainers(env, names);
  const latestStart = Math.max(...startedAt.map((at) => Date.parse(at)));
  await delay(Math.max(0, latestStart + flip.windowMs - Date.now()));
  if ((await readContainers(env, names)) !== stable)
    throw new Error('the successor changed within the stability window');
  if (!(await allServed(flip.stagingAddress, `served by ${SUCCESSOR}`)))
    throw new Error('the successor does not serve the public names');

  await env.engine.stop(predecessor);
  const stopped = Date.now();
  await untilServed(flip.publicAddress, `served by ${SUCCESSOR}`, 30_000);
  const servedAfterStopMs = Date.now() - stopped;
  await env.engine.remove(predecessor);
  if ((await readContainers(env, names)) !== stable) throw new Error('the successor changed after the flip');
  return { wallMs: Date.now() - begun, servedAfterStopMs };
}
