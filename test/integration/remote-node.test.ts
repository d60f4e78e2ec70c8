import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createActivities, hostRootFromMesh } from '../../activities';
import { dockerResolver, type DockerEndpointsConfigInput } from '../../docker/endpoints';
import { BASE_IMAGE, LABEL, type DockerEngine } from '../../docker/engine';
import { LocalMesh, runNodeAgent } from '../../mesh/local';
import { placementOn } from '../../docker/placement';
import { edgeFlip } from '../../workflows';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { decide, statusWhen, waitingAt } from '../support/runbooks';
import { SecondEngine } from '../support/second-engine';

/** PID 1 ignores SIGTERM unless it traps it; this one stops at once. */
const SLEEPER = ['sh', '-c', 'trap "exit 0" TERM; sleep 600 & wait'];

/** `{container name: running?}` of every container labelled with `node` on `engine`. */
async function containersOf(engine: DockerEngine, node: string): Promise<Record<string, boolean>> {
  const found = await engine.listByLabels({ [LABEL.node]: node });
  return Object.fromEntries(found.map((c) => [(c.Names[0] ?? '').replace(/^\//, ''), c.State === 'running']));
}

describe('a second Docker engine as a second node, through a real worker', () => {
  const agents = new Set<Promise<unknown>>();
  let second: SecondEngine | undefined;
  let engineB: DockerEngine;
  let world: RunbookWorld;
  let nodeA: string, nodeB: string, nodeC: string;

  before(async () => {
    second = await SecondEngine.start({ tls: true });
    engineB = second.client();
    // The world names the nodes, so node B gets its endpoint once the world exists (below).
    let dockerFor = dockerResolver({});
    // Each node's agent applies on its own engine, as mesh-host does on a real node.
    const startAgent = (stateDir: string) => (node: string) => {
      const applying = runNodeAgent(stateDir, node, { engine: dockerFor(node) }).catch(() => undefined);
      agents.add(applying);
      void applying.finally(() => agents.delete(applying));
    };
    world = await runbookWorld({
      mesh: (stateDir) => new LocalMesh({ stateDir, startAgent: startAgent(stateDir) }),
      deps: { dockerFor: (node) => dockerFor(node) },
    });
    [nodeA, nodeB, nodeC] = [world.nodeName(), world.nodeName(), world.nodeName()];
    dockerFor = dockerResolver({ nodes: { [nodeB]: { socket: second.socket } } });
  });

  after(async () => {
    await world?.stopWorkers();
    await Promise.all(agents);
    await world?.[Symbol.asyncDispose]();
    await second?.stop();
  });

  /** Modules are mesh-wide, so each node flips modules of its own: `caddy-<node>` to `proxy-<node>`. */
  async function flip(node: string): Promise<string> {
    const [predecessor, module] = [`caddy-${node}`, `proxy-${node}`];
    const input = await seedEdgeFlip(world, { node, predecessor, successor: module });
    const handle = await world.start(edgeFlip, input);
    await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    await decide(handle, 'approve', 'approve-stop-predecessor');
    return (await handle.result()).phase;
  }

  it('edge flips node-b entirely on engine B and node-a on engine A, side by side', async () => {
    assert.deepEqual(await Promise.all([flip(nodeA), flip(nodeB)]), ['completed', 'completed']);
    // The clean flip unassigns the predecessor: its container is gone, not just stopped.
    const flipped = (node: string) => ({
      [`${node}.proxy-${node}.edge`]: true,
      [`${node}.proxy-${node}.ca`]: true,
      [`${node}.proxy-${node}.dns`]: true,
    });
    assert.deepEqual(await containersOf(engineB, nodeB), flipped(nodeB));
    assert.deepEqual(await containersOf(world.engine, nodeA), flipped(nodeA));
    assert.deepEqual(await containersOf(world.engine, nodeB), {}, 'nothing of node-b on engine A');
    assert.deepEqual(await containersOf(engineB, nodeA), {}, 'nothing of node-a on engine B');
  });

  it('reaches engine B over tcp with TLS: inspects, stops and starts there; no client cert, no answer', async () => {
    assert.ok(second?.tls);
    const { port, certs } = second.tls;
    const tcp = { host: '127.0.0.1', port, ca: certs.ca, cert: certs.clientCert, key: certs.clientKey };
    const node = await world.mesh.createNode(nodeC, { adopted: false });
    const spec = await world.mesh.defineModule({
      module: `pair-${nodeC}`,
      containers: ['one', 'two'].map((name) => ({ name, image: BASE_IMAGE, command: SLEEPER })),
    });
    for (const container of spec.containers)
      await engineB.createAndStart(container, placementOn(nodeC, node.hostRoot, spec.module, container.name));
    const endpoints: DockerEndpointsConfigInput = { nodes: { [nodeC]: { tcp } } };
    const activities = createActivities({
      mesh: world.mesh,
      dockerFor: dockerResolver(endpoints),
      hostRootOf: hostRootFromMesh(world.mesh),
    });
    const target = { node: nodeC, module: spec.module };

    const evidence = await activities.inspectModuleContainers({ ...target, stabilityWindowMs: 0 });
    assert.deepEqual(
      evidence.map((e) => [e.name, e.observed.exists && e.observed.state]),
      [
        [`${nodeC}.${spec.module}.one`, 'running'],
        [`${nodeC}.${spec.module}.two`, 'running'],
      ],
    );
    await activities.stopModuleContainers(target);
    assert.deepEqual(Object.values(await containersOf(engineB, nodeC)), [false, false]);
    await activities.startModuleContainers(target);
    assert.deepEqual(Object.values(await containersOf(engineB, nodeC)), [true, true]);
    assert.deepEqual(await containersOf(world.engine, nodeC), {});

    const noClientCert = dockerResolver({
      nodes: { [nodeC]: { tcp: { host: '127.0.0.1', port, ca: certs.ca } } },
    });
    await assert.rejects(noClientCert(nodeC).ping(), { code: 'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE' });
  });
});
