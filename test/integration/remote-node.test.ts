import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createActivities } from '../../activities';
import { dockerResolver, type DockerEndpointsConfigInput } from '../../docker/endpoints';
import { BASE_IMAGE, DockerEngine, LABEL } from '../../docker/engine';
import { placementOn } from '../../docker/placement';
import { LocalMesh, runNodeAgent } from '../../mesh/local';
import { seededEdgeFlipInput, startEdgeFlip } from '../support/edge-flip-start';
import { removeNodeContainers } from '../support/docker';
import { decide, statusWhen, waitingAt } from '../support/runbooks';
import { Scratch } from '../support/scratch';
import { SecondEngine } from '../support/second-engine';
import { startTestWorker, type TestWorker } from '../support/temporal';

/** PID 1 ignores SIGTERM unless it traps it; this one stops at once. */
const SLEEPER = ['sh', '-c', 'trap "exit 0" TERM; sleep 600 & wait'];

/** `{container name: running?}` of every container labelled with `node` on `engine`. */
async function containersOf(engine: DockerEngine, node: string): Promise<Record<string, boolean>> {
  const found = await engine.listByLabels({ [LABEL.node]: node });
  return Object.fromEntries(found.map((c) => [(c.Names[0] ?? '').replace(/^\//, ''), c.State === 'running']));
}

describe('a second Docker engine as a second node, through a real worker', () => {
  const scratch = new Scratch();
  const engineA = new DockerEngine();
  const id = randomBytes(3).toString('hex');
  const [nodeA, nodeB, nodeC] = [`a${id}`, `b${id}`, `c${id}`];
  const agents = new Set<Promise<unknown>>();
  let second: SecondEngine | undefined;
  let engineB: DockerEngine;
  let mesh: LocalMesh;
  let worker: TestWorker | undefined;

  before(async () => {
    second = await SecondEngine.start({ tls: true });
    engineB = second.client();
    const dockerFor = dockerResolver({ nodes: { [nodeB]: { socket: second.socket } } });
    const stateDir = await scratch.dir();
    // Each node's agent applies on its own engine, as mesh-host does on a real node.
    const startAgent = (node: string) => {
      const applying = runNodeAgent(stateDir, node, { engine: dockerFor(node) }).catch(() => undefined);
      agents.add(applying);
      void applying.finally(() => agents.delete(applying));
    };
    mesh = new LocalMesh({ stateDir, startAgent });
    worker = await startTestWorker({ mesh, dockerFor });
  });

  after(async () => {
    await worker?.stop();
    await Promise.all(agents);
    await removeNodeContainers([nodeA, nodeB, nodeC], engineA);
    await second?.stop();
    await scratch.cleanup();
  });

  /** Modules are mesh-wide, so each node flips modules of its own: `caddy-<node>` to `proxy-<node>`. */
  async function edgeFlip(node: string): Promise<string> {
    assert.ok(worker);
    const [predecessor, module] = [`caddy-${node}`, `proxy-${node}`];
    const input = await seededEdgeFlipInput(mesh, node, { predecessor, successor: module });
    const handle = await startEdgeFlip(worker.client, worker.taskQueue, input);
    await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    await decide(handle, 'approve', 'approve-stop-predecessor');
    return (await handle.result()).phase;
  }

  it('edge flips node-b entirely on engine B and node-a on engine A, side by side', async () => {
    assert.deepEqual(await Promise.all([edgeFlip(nodeA), edgeFlip(nodeB)]), ['completed', 'completed']);
    const flipped = (node: string) => ({
      [`${node}.caddy-${node}.edge`]: false,
      [`${node}.proxy-${node}.edge`]: true,
      [`${node}.proxy-${node}.ca`]: true,
      [`${node}.proxy-${node}.dns`]: true,
    });
    assert.deepEqual(await containersOf(engineB, nodeB), flipped(nodeB));
    assert.deepEqual(await containersOf(engineA, nodeA), flipped(nodeA));
    assert.deepEqual(await containersOf(engineA, nodeB), {}, 'nothing of node-b on engine A');
    assert.deepEqual(await containersOf(engineB, nodeA), {}, 'nothing of node-a on engine B');
  });

  it('reaches engine B over tcp with TLS: inspects, stops and starts there; no client cert, no answer', async () => {
    assert.ok(second?.tls);
    const { port, certs } = second.tls;
    const tcp = { host: '127.0.0.1', port, ca: certs.ca, cert: certs.clientCert, key: certs.clientKey };
    const node = await mesh.createNode(nodeC, { adopted: false });
    const spec = await mesh.defineModule({
      module: `pair${id}`,
      containers: ['one', 'two'].map((name) => ({ name, image: BASE_IMAGE, command: SLEEPER })),
    });
    for (const container of spec.containers)
      await engineB.createAndStart(container, placementOn(nodeC, node.hostRoot, spec.module, container.name));
    const endpoints: DockerEndpointsConfigInput = { nodes: { [nodeC]: { tcp } } };
    const activities = createActivities({ mesh, dockerFor: dockerResolver(endpoints) });
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
    assert.deepEqual(await containersOf(engineA, nodeC), {});

    const noClientCert = dockerResolver({
      nodes: { [nodeC]: { tcp: { host: '127.0.0.1', port, ca: certs.ca } } },
    });
    await assert.rejects(noClientCert(nodeC).ping(), { code: 'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE' });
  });
});
