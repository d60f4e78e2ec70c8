import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dockerResolver } from '../../docker/endpoints';
import { startRunbook } from '../../client/start-runbook';
import { edgeFlip } from '../../workflows';
import { seededEdgeFlipInput } from '../support/edge-flip-start';
import { LocalWorld } from '../support/local-world';
import { statusWhen, stepState, terminateOpen, waitingAt } from '../support/runbooks';
import { startTestWorker, type TestWorker } from '../support/temporal';

const locksNote = (s: { steps: { name: string; note?: string }[] }) =>
  s.steps.find((step) => step.name === 'locks')?.note ?? '';

describe('a second runbook touching the same module waits for the first (module locks, real Temporal)', () => {
  let world: LocalWorld;
  let worker: TestWorker;
  before(async () => {
    world = await LocalWorld.create();
    worker = await startTestWorker({ mesh: world.mesh, dockerFor: dockerResolver({}) });
  });
  after(async () => {
    await worker.stop();
    await world.cleanup();
  });

  it('waits while the first holds route-proxy, naming it; goes on once the first is aborted', async () => {
    const first = world.nodeName();
    const second = world.nodeName();
    const aInput = await seededEdgeFlipInput(world.mesh, first, { leftovers: true });
    const a = await startRunbook(worker.client, edgeFlip, aInput, { taskQueue: worker.taskQueue });
    const handles = [a];
    try {
      await statusWhen(a, waitingAt('gate-apply'));
      // Never seeded: the second runbook must not get as far as looking at its node.
      const b = await startRunbook(
        worker.client,
        edgeFlip,
        { ...aInput, node: second },
        { taskQueue: worker.taskQueue },
      );
      handles.push(b);
      const waiting = await statusWhen(b, (s) => locksNote(s).startsWith('waits for'));
      assert.equal(
        locksNote(waiting),
        `waits for runbook-${first} (edge-flip caddy → route-proxy on ${first}) to finish`,
      );
      assert.equal(stepState(waiting, 'preflight'), 'pending', 'nothing else ran');

      await a.cancel();
      await assert.rejects(a.result());
      const moved = await statusWhen(b, (s) => stepState(s, 'locks') === 'done');
      assert.equal(locksNote(moved), `holds node-${second}, module-route-proxy, module-caddy`);
    } finally {
      await terminateOpen(handles);
    }
  });

  it('a holder terminated without releasing is noticed: the waiting runbook gets the lock', async () => {
    const first = world.nodeName();
    const second = world.nodeName();
    const aInput = await seededEdgeFlipInput(world.mesh, first, { leftovers: true });
    const a = await startRunbook(worker.client, edgeFlip, aInput, { taskQueue: worker.taskQueue });
    const handles = [a];
    try {
      await statusWhen(a, waitingAt('gate-apply'));
      const b = await startRunbook(
        worker.client,
        edgeFlip,
        { ...aInput, node: second },
        { taskQueue: worker.taskQueue },
      );
      handles.push(b);
      await statusWhen(b, (s) => locksNote(s).startsWith('waits for'));
      await a.terminate('test: a runbook that never releases');
      await statusWhen(b, (s) => stepState(s, 'locks') === 'done', 60_000);
    } finally {
      await terminateOpen(handles);
    }
  });
});
