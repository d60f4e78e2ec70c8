import assert from 'node:assert/strict';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { History } from '@temporalio/common/lib/proto-utils';
import { hostPathOnNode } from '../../docker/placement';
import { NODE_BASELINES } from '../../activities/data/baseline-store';
import { dataPathMove } from '../../workflows';
import type { RunbookStatus } from '../../workflows/contracts';
import { moveInput, seedForge, type Forge } from '../support/data-move';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { decide, statusWhen } from '../support/runbooks';
import { harnessTarget, workerProcessOf } from '../support/temporal';
import { MeshWorker } from '../support/tls-cli';

/**
 * The catch-up judges B against the baseline recorded after the copy. A worker that kept it in its own
 * state dir took it along when it went: a node worker's container recreated (its state dir was not a
 * volume), or a second worker on the node (another unit, another user) running the catch-up, found none
 * and the move stood at catch-up. Baselines live on the node's disk now. Real `mesh runbook worker`
 * processes, each with its own MESH_STATE_DIR as two containers have; real Temporal, Docker and files.
 */

const WAIT_MS = 180_000;

/** `mesh runbook worker --node <node> --host-root <root> --nodes-only` keeping its state in `stateDir`. */
function nodeWorker(world: RunbookWorld, forge: Forge, stateDir: string): MeshWorker {
  const target = harnessTarget();
  return MeshWorker.start(
    {
      TEMPORAL_ADDRESS: target.address,
      TEMPORAL_NAMESPACE: target.namespace,
      MESH_TASK_QUEUE: world.taskQueue,
      MESH_ADAPTER: 'local',
      MESH_LOCAL_STATE: world.stateDir,
      MESH_STATE_DIR: stateDir,
      MESH_LOG_LEVEL: 'warn',
    },
    '--node',
    forge.node,
    '--host-root',
    forge.hostRoot,
    '--nodes-only',
  );
}

/** The identity that ran each completed activity of this type, in history order. */
function ranBy(history: History, type: string): string[] {
  const events = history.events ?? [];
  const scheduled = new Set(
    events
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type)
      .map((e) => String(e.eventId)),
  );
  return events.flatMap((e) => {
    const started = e.activityTaskStartedEventAttributes;
    return started && scheduled.has(String(started.scheduledEventId))
      ? [workerProcessOf(started.identity)]
      : [];
  });
}

describe("a move's baseline is found by every worker of its node (real worker processes)", () => {
  it('a baseline recorded by one node worker is found by the next (a recreated container): the catch-up runs there', async () => {
    await using world = await runbookWorld({ nodeQueues: 'none' });
    const forge = await seedForge(world);
    const [stateOne, stateTwo] = [join(world.stateDir, 'worker-one'), join(world.stateDir, 'worker-two')];
    await Promise.all([mkdir(stateOne), mkdir(stateTwo)]);
    const first = nodeWorker(world, forge, stateOne);
    let second: MeshWorker | undefined;
    try {
      const one = await first.ready();
      const handle = await world.start(dataPathMove, moveInput(forge));
      await statusWhen(handle, (s) => s.waiting?.gate === 'gate-apply', WAIT_MS);
      // A write on A while the container the push left there runs: the catch-up must bring it.
      await writeFile(join(forge.hostFrom, 'written-on-a.txt'), 'written on A before the recreate\n');

      // The first worker goes (its container recreated without its state dir); another takes the node.
      await first.stop();
      second = nodeWorker(world, forge, stateTwo);
      const two = await second.ready();
      assert.notEqual(one.identity, two.identity);
      await decide(handle, 'recreate', 'gate-apply');
      const next: RunbookStatus = await statusWhen(
        handle,
        (s) => s.waiting?.gate === 'approve-remove-old-data' || s.waiting?.gate === 'catch-up',
        WAIT_MS,
      );
      assert.equal(next.waiting?.gate, 'approve-remove-old-data', JSON.stringify(next.waiting));

      const history = await handle.fetchHistory();
      assert.deepEqual(ranBy(history, 'recordBaseline'), [one.identity]);
      assert.deepEqual(
        ranBy(history, 'catchUpCopy'),
        [two.identity],
        'the catch-up ran on the second worker',
      );
      const onNode = await readdir(hostPathOnNode(forge.hostRoot, NODE_BASELINES));
      assert.deepEqual(onNode.length, 1, `the one baseline is on the node's disk: ${onNode.join(', ')}`);
      assert.deepEqual(await readdir(stateOne), [], "nothing in the first worker's own state dir");
      assert.equal(
        next.steps.find((s) => s.name === 'catch-up')?.note,
        '1 change(s) from /srv/forge brought to /var/lib/forge',
      );
      await decide(handle, 'keep', 'approve-remove-old-data');
      const done: RunbookStatus = await handle.result();
      assert.equal(done.phase, 'completed', done.outcome);
    } finally {
      await Promise.all([first.stop(), second?.stop()]);
    }
  });
});
