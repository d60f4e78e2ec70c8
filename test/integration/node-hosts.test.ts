import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { NativeConnection, Worker } from '@temporalio/worker';
import { edgeFlip } from '../../workflows';
import { nodeTaskQueue } from '../../workflows/contracts';
import { hostOfNode, runningOnRecordedHost } from '../fixtures/node-queue-workflows';
import { seedForge } from '../support/data-move';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { decide, httpBody, isRunning, statusWhen, stepState, waitingAt } from '../support/runbooks';
import { harnessTarget } from '../support/temporal';
import { holdThreadPool } from '../support/thread-pool';

/**
 * A worker started with the wrong --node on another host (here: a host root of its own, its own machine id,
 * as a copied unit file on the wrong machine would be): it polls the node's queue as if it were the node.
 */
async function workerOnAnotherHost(world: RunbookWorld, node: string) {
  const root = join(world.stateDir, `another-host-${randomBytes(3).toString('hex')}`);
  await mkdir(join(root, 'etc'), { recursive: true });
  await writeFile(join(root, 'etc', 'machine-id'), `${randomBytes(16).toString('hex')}\n`);
  return world.startWorker({ nodeQueues: { nodes: [{ node, hostRoot: root }] }, nodeQueuesOnly: true });
}

/** The node's own worker, at the host root the local mesh gave the node. */
async function workerOnTheNode(world: RunbookWorld, node: string) {
  const { hostRoot } = await world.mesh.nodeState(node);
  return world.startWorker({ nodeQueues: { nodes: [{ node, hostRoot }] }, nodeQueuesOnly: true });
}

describe('a node worker proves its host (real Temporal, real Docker, the local mesh)', () => {
  it('two hosts poll one node: preflight waits naming both, and nothing on the node changed', async () => {
    await using world = await runbookWorld({ nodeQueues: 'none' });
    const input = await seedEdgeFlip(world);
    await workerOnTheNode(world, input.node);
    await workerOnAnotherHost(world, input.node);
    const handle = await world.start(edgeFlip, input);

    const waiting = await statusWhen(handle, waitingAt('preflight'));
    const reason = waiting.waiting?.reason ?? '';
    assert.match(reason, new RegExp(`Two hosts poll node ${input.node}'s queue: .* and .*`));
    assert.equal((reason.match(/\[[a-z0-9-]+ on engine [^\]]+\]/g) ?? []).length, 2, reason);
    assert.deepEqual(waiting.waiting?.actions, ['retry', 'abort']);
    assert.equal(stepState(waiting, 'assign-successor'), 'pending');
    assert.ok(!(await world.mesh.nodeState(input.node)).assigned.includes('route-proxy'));
  });

  it('the node worker replaced by one on another host while the approval waits: the stop is refused, the predecessor keeps serving', async () => {
    await using world = await runbookWorld({ nodeQueues: 'none' });
    const input = await seedEdgeFlip(world);
    const own = await workerOnTheNode(world, input.node);
    const handle = await world.start(edgeFlip, input);
    await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    await own.stop();
    await workerOnAnotherHost(world, input.node);
    await decide(handle, 'approve');

    const refused = await statusWhen(handle, (s) => s.waiting?.verdict === 'failed');
    const reason = refused.waiting?.reason ?? '';
    assert.match(
      reason,
      new RegExp(
        `Two hosts serve node ${input.node}: the worker .* works on engine .*, but ${input.node} was engine .* when the runbook's preflight looked`,
      ),
    );
    assert.equal(stepState(refused, 'stop-predecessor'), 'pending');
    assert.equal(
      await isRunning(world.engine, `${input.node}.caddy.edge`),
      true,
      'the predecessor still runs',
    );
    assert.match(await httpBody(input.publicAddress), /served by caddy/);
  });

  it("proves its host without touching the node's disk: with every thread of its file system calls held (a copy hung in a frozen mount), an undo's read still answers", async () => {
    await using world = await runbookWorld({ nodeQueues: 'none' });
    const forge = await seedForge(world);
    await workerOnTheNode(world, forge.node);
    const fixtureQueue = `${world.taskQueue}-fixture`;
    const connection = await NativeConnection.connect({ address: harnessTarget().address });
    const fixtures = await Worker.create({
      connection,
      namespace: harnessTarget().namespace,
      taskQueue: fixtureQueue,
      workflowsPath: require.resolve('../fixtures/node-queue-workflows'),
    });
    const queue = nodeTaskQueue(world.taskQueue, forge.node);
    const options = (name: string) => ({
      taskQueue: fixtureQueue,
      workflowId: `${name}-${randomBytes(4).toString('hex')}`,
    });
    const run = fixtures.runUntil(async () => {
      const host = await world.client.workflow.execute(hostOfNode, {
        ...options('host-of'),
        args: [{ queue, node: forge.node }],
      });
      // From here no file system call of this process (the node's worker is in it) gets a thread.
      const hold = holdThreadPool(world.stateDir);
      try {
        const running = await world.client.workflow.execute(runningOnRecordedHost, {
          ...options('running-on'),
          args: [{ queue, node: forge.node, module: forge.module, host }],
        });
        assert.deepEqual(running, [forge.web]);
      } finally {
        await hold.release();
      }
    });
    await run.finally(() => connection.close());
  });
});
