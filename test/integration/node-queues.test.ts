import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { it } from 'node:test';
import { ActivityFailure, ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import type { History } from '@temporalio/common/lib/proto-utils';
import { NativeConnection, Worker } from '@temporalio/worker';
import { fixedHostRoot } from '../../activities';
import { WRONG_NODE } from '../../worker/node-worker';
import { dataPathMove } from '../../workflows';
import { isNodeLocalActivity, nodeTaskQueue, type RunbookStatus } from '../../workflows/contracts';
import { removeTreeThrough } from '../fixtures/node-queue-workflows';
import {
  digestDifferences,
  exists,
  moveInput,
  seedForge,
  treeDigest,
  type Forge,
} from '../support/data-move';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { decide, statusWhen, waitingAt } from '../support/runbooks';
import { harnessTarget } from '../support/temporal';
import { MeshWorker } from '../support/tls-cli';
import { describe } from '../support/side-by-side';

/**
 * A node's data and Docker work runs on a worker on that node (issue 10, item 3): revision-2 runbooks
 * schedule it on `<queue>@<node>`, a node worker refuses work for any other node, and its host root is its
 * own setting. Real Temporal, real Docker, real files; the node workers are `mesh runbook worker` processes.
 */

const WAIT_MS = 180_000;
const RUNBOOK_QUEUE_WORKER = 'runbook-queue-worker';

/** `mesh runbook worker --node <node> --host-root <root> --nodes-only` on the world's queue and mesh. */
function nodeWorker(world: RunbookWorld, forge: Forge): MeshWorker {
  const target = harnessTarget();
  const env = {
    TEMPORAL_ADDRESS: target.address,
    TEMPORAL_NAMESPACE: target.namespace,
    MESH_TASK_QUEUE: world.taskQueue,
    MESH_ADAPTER: 'local',
    MESH_LOCAL_STATE: world.stateDir,
    MESH_LOG_LEVEL: 'warn',
  };
  return MeshWorker.start(env, '--node', forge.node, '--host-root', forge.hostRoot, '--nodes-only');
}

const NOT_STARTED = '(not started)';

/** Each scheduled activity: its type, the task queue it was scheduled on, and the identity that ran it. */
function activityPlacements(history: History): { type: string; queue: string; ranBy: string }[] {
  const events = history.events ?? [];
  const ranBy = new Map<string, string>();
  for (const event of events) {
    const started = event.activityTaskStartedEventAttributes;
    if (started) ranBy.set(String(started.scheduledEventId), started.identity ?? '');
  }
  return events.flatMap((event) => {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (!scheduled) return [];
    return [
      {
        type: scheduled.activityType?.name ?? '',
        queue: scheduled.taskQueue?.name ?? '',
        ranBy: ranBy.get(String(event.eventId)) ?? NOT_STARTED,
      },
    ];
  });
}

async function moveAndRemoveOldData(world: RunbookWorld, forge: Forge) {
  const handle = await world.start(dataPathMove, moveInput(forge));
  await statusWhen(handle, waitingAt('gate-apply'), WAIT_MS);
  await decide(handle, 'recreate', 'gate-apply');
  await statusWhen(handle, waitingAt('approve-remove-old-data'), WAIT_MS);
  await decide(handle, 'remove', 'approve-remove-old-data');
  const done: RunbookStatus = await handle.result();
  assert.equal(done.phase, 'completed', done.outcome);
  return handle.fetchHistory();
}

describe("node-local work runs on the node's own worker (real Temporal, real Docker, real files)", () => {
  it("two nodes, two roots, two node workers: each node's copy lands in its own root and nowhere else", async () => {
    await using world = await runbookWorld({ worker: 'none' });
    // The runbook queue's worker serves no node: node work that reached it would land in this root.
    const runbookQueueRoot = join(world.stateDir, 'runbook-queue-worker-root');
    await mkdir(runbookQueueRoot);
    await world.startWorker({
      deps: { hostRootOf: fixedHostRoot(runbookQueueRoot) },
      identity: RUNBOOK_QUEUE_WORKER,
    });
    const [a, b] = [await seedForge(world), await seedForge(world)] as const;
    assert.notEqual(a.hostRoot, b.hostRoot);
    const originals = [await treeDigest(a.hostFrom), await treeDigest(b.hostFrom)] as const;
    const workers = [nodeWorker(world, a), nodeWorker(world, b)];
    try {
      const ready = await Promise.all(workers.map((worker) => worker.ready()));
      assert.equal(ready[0]?.nodes, `${world.taskQueue}@${a.node} (host root ${a.hostRoot})`);

      const historyA = await moveAndRemoveOldData(world, a);
      assert.deepEqual(
        digestDifferences(originals[0], await treeDigest(a.hostTo)),
        [],
        'A copied in its root',
      );
      assert.equal(await exists(a.hostFrom), false, "A's old data removed from A's root");
      assert.deepEqual(
        digestDifferences(originals[1], await treeDigest(b.hostFrom)),
        [],
        "B's tree at the same node path is untouched by A's copy and removal",
      );
      assert.equal(await exists(b.hostTo), false, "nothing landed in B's root");
      assert.deepEqual(await readdir(runbookQueueRoot), [], 'nothing landed on the runbook queue worker');

      const historyB = await moveAndRemoveOldData(world, b);
      assert.deepEqual(
        digestDifferences(originals[1], await treeDigest(b.hostTo)),
        [],
        'B copied in its root',
      );
      assert.equal(await exists(b.hostFrom), false, "B's old data removed from B's root");
      assert.deepEqual(digestDifferences(originals[0], await treeDigest(a.hostTo)), [], "A's root untouched");
      assert.deepEqual(await readdir(runbookQueueRoot), [], 'nothing landed on the runbook queue worker');

      const runs = [
        { node: a.node, history: historyA, worker: ready[0]?.identity },
        { node: b.node, history: historyB, worker: ready[1]?.identity },
      ];
      for (const { node, history, worker } of runs) {
        const placements = activityPlacements(history);
        const onNode = placements.filter((p) => isNodeLocalActivity(p.type));
        for (const type of ['preflightMove', 'stopContainers', 'copyTree', 'verifyTree', 'removeTree'])
          assert.ok(
            onNode.some((p) => p.type === type),
            `${type} ran: ${JSON.stringify(placements)}`,
          );
        const nodeQueue = nodeTaskQueue(world.taskQueue, node);
        // A node worker's identity says which node it serves and on which host (engine, machine).
        const nodeWorkerIdentity = new RegExp(`^${worker} \\[${node} on engine \\S+\\]$`);
        for (const p of onNode) {
          assert.equal(p.queue, nodeQueue, p.type);
          // A waiting approval's watch may be cancelled (decided) before any worker took it.
          if (p.type === 'watchPathUsers' && p.ranBy === NOT_STARTED) continue;
          assert.match(p.ranBy, nodeWorkerIdentity, p.type);
        }
        for (const p of placements.filter((p) => !isNodeLocalActivity(p.type)))
          assert.deepEqual(p, { type: p.type, queue: world.taskQueue, ranBy: RUNBOOK_QUEUE_WORKER });
      }
    } finally {
      await Promise.all(workers.map((worker) => worker.stop()));
    }
  });

  it('a node without a worker: the step waits naming the worker to start, and moves on once it runs', async () => {
    await using world = await runbookWorld({ nodeQueues: 'none' });
    const forge = await seedForge(world);
    const handle = await world.start(dataPathMove, moveInput(forge));
    // Node work waits a minute at the server for the node's worker before the step says so.
    const waiting = await statusWhen(handle, waitingAt('preflight'), 120_000);
    assert.equal(waiting.waiting?.verdict, 'failed');
    assert.deepEqual(waiting.waiting?.actions, ['retry', 'abort']);
    const reason = waiting.waiting?.reason ?? '';
    const expected = `Step preflight failed: No worker on node ${forge.node} took nodeFingerprint within 1 minute: start \`mesh runbook worker --node ${forge.node}\` there (it polls ${world.taskQueue}@${forge.node}); retry runs it again`;
    assert.ok(reason.startsWith(expected), reason);
    assert.equal(await exists(forge.hostTo), false, 'nothing copied');
    await world.startWorker({
      nodeQueues: { nodes: [{ node: forge.node, hostRoot: forge.hostRoot }] },
      nodeQueuesOnly: true,
    });
    await decide(handle, 'retry', 'preflight');
    await statusWhen(handle, waitingAt('gate-apply'), WAIT_MS);
    assert.equal(await exists(forge.hostTo), true, 'the node worker copied once it ran');
  });

  it('a worker on another node refuses the work (WrongNode): a tree at the same path on its host stays', async () => {
    await using world = await runbookWorld({ worker: 'none' });
    const [a, b] = [world.nodeName(), world.nodeName()];
    const rootA = (await world.mesh.createNode(a, { adopted: false })).hostRoot;
    const rootB = (await world.mesh.createNode(b, { adopted: false })).hostRoot;
    for (const root of [rootA, rootB]) {
      await mkdir(join(root, 'srv/data'), { recursive: true });
      await writeFile(join(root, 'srv/data/keep'), 'the only copy\n');
    }
    await world.startWorker({ nodeQueues: { nodes: [{ node: a, hostRoot: rootA }] }, nodeQueuesOnly: true });
    const fixtureQueue = `${world.taskQueue}-fixture`;
    const target = harnessTarget();
    const connection = await NativeConnection.connect({ address: target.address });
    const fixtures = await Worker.create({
      connection,
      namespace: target.namespace,
      taskQueue: fixtureQueue,
      workflowsPath: require.resolve('../fixtures/node-queue-workflows'),
    });
    const remove = (node: string) =>
      world.client.workflow.execute(removeTreeThrough, {
        taskQueue: fixtureQueue,
        workflowId: `remove-through-${randomBytes(4).toString('hex')}`,
        args: [{ queue: nodeTaskQueue(world.taskQueue, a), node, path: '/srv/data' }],
      });
    const run = fixtures.runUntil(async () => {
      const refused = await remove(b).then(
        () => assert.fail("node a's worker removed node b's data"),
        (error: unknown) => error,
      );
      assert.ok(refused instanceof WorkflowFailedError, String(refused));
      assert.ok(refused.cause instanceof ActivityFailure, String(refused.cause));
      const failure = refused.cause.cause;
      assert.ok(failure instanceof ApplicationFailure, String(failure));
      assert.equal(failure.type, WRONG_NODE);
      assert.equal(
        failure.message,
        `The worker of node ${a} refuses removeTree for node ${b}, whose own worker polls ${world.taskQueue}@${b}.`,
      );
      assert.equal(await exists(join(rootA, 'srv/data/keep')), true, "a's tree stays");
      assert.equal(await exists(join(rootB, 'srv/data/keep')), true, "b's tree stays");

      // The same worker does its own node's work, in its own root only.
      await remove(a);
      assert.equal(await exists(join(rootA, 'srv/data')), false, "a's tree removed");
      assert.equal(await exists(join(rootB, 'srv/data/keep')), true, "b's tree at the same path stays");
    });
    await run.finally(() => connection.close());
  });
});
