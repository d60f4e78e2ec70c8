import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { WorkflowExecutionAlreadyStartedError, type WorkflowHandle } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { dockerResolver } from '../../docker/endpoints';
import { seedEdgeScenario, type EdgeScenario } from '../../mesh/local/scenarios/edge-flip-incident';
import {
  decideUpdate,
  runbookWorkflowId,
  statusQuery,
  type Decision,
  type EdgeFlipInputArg,
} from '../../workflows/contracts';
import { LocalWorld } from '../support/local-world';
import {
  closedFailing,
  decide,
  decisionRefusal,
  FAST_TIMINGS,
  freePort,
  isRunning,
  statusWhen,
  terminateOpen,
  waitingAt,
} from '../support/runbooks';
import { startTestWorker, type TestWorker } from '../support/temporal';

describe('edge-flip refuses decisions and runbooks it is not waiting for (real Temporal, real Docker)', () => {
  let world: LocalWorld;
  let worker: TestWorker;
  const handles: WorkflowHandle[] = [];

  before(async () => {
    world = await LocalWorld.create();
    worker = await startTestWorker({ mesh: world.mesh, dockerFor: dockerResolver({}) });
  });

  afterEach(() => terminateOpen(handles));

  after(async () => {
    await terminateOpen(handles);
    await worker?.stop();
    await world?.cleanup();
  });

  /** The incident: the successor's leftovers are held until take, so the runbook waits at gate-apply. */
  async function incident() {
    const node = world.nodeName();
    const seeded = await seedEdgeScenario(world.mesh, {
      node,
      predecessor: 'caddy',
      successor: 'route-proxy',
      publicPort: await freePort(),
      stagingPort: await freePort(),
      leftovers: true,
    });
    return { node, seeded };
  }

  async function start(node: string, seeded: EdgeScenario, startedBy = 'alice') {
    const input: EdgeFlipInputArg = {
      node,
      module: 'route-proxy',
      predecessor: 'caddy',
      ...seeded,
      startedBy,
      timings: FAST_TIMINGS,
    };
    const handle = await worker.client.workflow.start('edgeFlip', {
      args: [input],
      taskQueue: worker.taskQueue,
      workflowId: runbookWorkflowId(node),
    });
    handles.push(handle);
    return handle;
  }

  it('a decision the runbook is not waiting for is refused with a clear message and changes nothing', async () => {
    const { node, seeded } = await incident();
    const handle = await start(node, seeded);
    const held = await statusWhen(handle, waitingAt('gate-apply'));
    assert.equal(held.waiting?.verdict, 'held');

    assert.equal(
      await decisionRefusal(decide(handle, 'approve')),
      'approve is not an action at gate gate-apply (held); choose one of: take, retry, abort.',
    );
    assert.equal(
      await decisionRefusal(decide(handle, 'take', 'approve-stop-predecessor')),
      'The runbook is waiting at gate gate-apply, not approve-stop-predecessor; send the decision for gate-apply.',
    );
    const malformed = { action: 'take' } as Decision; // no `by`: the UI can send anything
    assert.match(
      await decisionRefusal(handle.executeUpdate(decideUpdate, { args: [malformed] })),
      /^The decision is malformed: .+\.$/,
    );

    const unaffected = await handle.query(statusQuery);
    assert.equal(unaffected.phase, 'waiting');
    assert.deepEqual(unaffected.waiting, held.waiting, 'still waiting at the same gate since the same time');
    assert.deepEqual(unaffected.decisions, [], 'no decision recorded');
    assert.equal(await isRunning(world.engine, `${node}.caddy.edge`), true);

    // Accepted; while the runbook takes, pushes and gates again, it waits for nothing.
    await decide(handle, 'take', 'gate-apply');
    assert.match(
      await decisionRefusal(decide(handle, 'take')),
      /^The runbook is not waiting for a decision \(it is at step [a-z-]+\)\.$/,
    );

    const approval = await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    assert.equal(
      await decisionRefusal(decide(handle, 'take')),
      'take is not an action at gate approve-stop-predecessor (approval); choose one of: approve, abort.',
    );
    const recorded = (await handle.query(statusQuery)).decisions;
    assert.deepEqual(recorded, approval.decisions);
    assert.deepEqual(
      recorded.map((d) => [d.gate, d.action, d.by]),
      [['gate-apply', 'take', 'bob']],
    );

    await decide(handle, 'approve');
    assert.equal((await handle.result()).phase, 'completed');
    // A closed runbook takes no decision at all: Temporal refuses the Update before any validator runs.
    await assert.rejects(decide(handle, 'take'), /workflow execution already completed/i);
  });

  it('a second runbook on the same node is refused while one runs; once it ended the node is free again', async () => {
    const { node, seeded } = await incident();
    const first = await start(node, seeded);
    const held = await statusWhen(first, waitingAt('gate-apply'));

    await assert.rejects(start(node, seeded, 'carol'), WorkflowExecutionAlreadyStartedError);
    const unaffected = await first.query(statusQuery);
    assert.equal(unaffected.startedBy, 'alice');
    assert.deepEqual(unaffected.waiting, held.waiting);
    assert.equal((await first.describe()).runId, first.firstExecutionRunId, 'still the first run');

    await first.cancel();
    assert.ok((await closedFailing(first)).cause instanceof CancelledFailure);

    const second = await start(node, seeded, 'carol');
    const again = await statusWhen(second, waitingAt('gate-apply'));
    assert.equal(again.startedBy, 'carol');
    await second.cancel();
    assert.equal((await closedFailing(second)).status.phase, 'aborted');
  });
});
