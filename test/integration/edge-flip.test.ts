import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { dockerResolver } from '../../docker/endpoints';
import { DockerEngine } from '../../docker/engine';
import { LocalMesh } from '../../mesh/local';
import { seedEdgeScenario, type EdgeScenario } from '../../mesh/local/scenarios/edge-flip-incident';
import { runbookWorkflowId, type EdgeFlipInputArg } from '../../workflows/contracts';
import { removeNodeContainers } from '../support/docker';
import { decide, freePort, statusWhen, stepState, waitingAt } from '../support/runbooks';
import { Scratch } from '../support/scratch';
import { startTestWorker, type TestWorker } from '../support/temporal';

const FAST = {
  applyReportMs: 20_000,
  healthDeadlineMs: 20_000,
  stabilityWindowMs: 500,
  recheckEveryMs: 300,
  probeDeadlineMs: 8_000,
};

describe('edge-flip runbook on a real Temporal dev server and the local mesh over real Docker', () => {
  const scratch = new Scratch();
  const nodes: string[] = [];
  const engine = new DockerEngine();
  let mesh: LocalMesh;
  let worker: TestWorker;

  before(async () => {
    mesh = new LocalMesh({ stateDir: await scratch.dir() });
    worker = await startTestWorker({ mesh, dockerFor: dockerResolver({}) });
  });

  after(async () => {
    await worker?.stop();
    await removeNodeContainers(nodes, engine);
    await scratch.cleanup();
  });

  async function scenario(leftovers: boolean, successorFault?: 'exits' | 'unhealthy') {
    const node = `t${randomBytes(3).toString('hex')}`;
    nodes.push(node);
    const [publicPort, stagingPort] = [await freePort(), await freePort()];
    const seeded = await seedEdgeScenario(mesh, {
      node,
      predecessor: 'caddy',
      successor: 'route-proxy',
      publicPort,
      stagingPort,
      leftovers,
      successorFault,
    });
    return { node, seeded };
  }

  function start(node: string, seeded: EdgeScenario) {
    const input: EdgeFlipInputArg = {
      node,
      module: 'route-proxy',
      predecessor: 'caddy',
      ...seeded,
      startedBy: 'alice',
      timings: FAST,
    };
    return worker.client.workflow.start('edgeFlip', {
      args: [input],
      taskQueue: worker.taskQueue,
      workflowId: runbookWorkflowId(node),
    });
  }

  it('happy path: verifies the successor, waits for approval, stops the predecessor, ends completed', async () => {
    const { node, seeded } = await scenario(false);
    const handle = await start(node, seeded);
    const waiting = await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    assert.equal(waiting.waiting?.verdict, 'approval');
    assert.equal(stepState(waiting, 'take'), 'skipped');
    assert.equal(
      (await engine.inspect(`${node}.caddy.edge`))?.State.Running,
      true,
      'predecessor untouched before approval',
    );
    await decide(handle, 'approve', 'approve-stop-predecessor');
    const done = await handle.result();
    assert.equal(done.phase, 'completed');
    // The flip ends clean: the predecessor is unassigned, so the last push removed its containers.
    assert.equal(await engine.inspect(`${node}.caddy.edge`), undefined);
    assert.ok(!(await mesh.nodeState(node)).assigned.includes('caddy'));
    assert.deepEqual(
      ['unassign-predecessor', 'gate-clean'].map((step) => stepState(done, step)),
      ['done', 'done'],
    );
  });

  it('incident replay: waits at the hold without touching the predecessor, completes after take', async () => {
    const { node, seeded } = await scenario(true);
    const handle = await start(node, seeded);
    const held = await statusWhen(handle, waitingAt('gate-apply'));
    assert.equal(held.waiting?.verdict, 'held');
    assert.match(held.waiting?.reason ?? '', /route-proxy is assigned to .* but not taken/);
    assert.ok(held.waiting?.actions.includes('take'));
    assert.equal((await engine.inspect(`${node}.caddy.edge`))?.State.Running, true);
    assert.equal(
      await engine.inspect(`${node}.route-proxy.edge`),
      undefined,
      'no successor container while held',
    );
    await decide(handle, 'take');
    await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    await decide(handle, 'approve');
    assert.equal((await handle.result()).phase, 'completed');
  });
});
