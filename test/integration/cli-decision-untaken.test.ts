import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { edgeFlip } from '../../workflows';
import type { RunbookStatus } from '../../workflows/contracts';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { runbookWorld } from '../support/runbook-world';
import { statusWhen, waitingAt } from '../support/runbooks';

const MESH = join(__dirname, '..', '..', 'bin', 'mesh.js');
const run = promisify(execFile);

/**
 * Found by the chaos suite (late decisions): an approval sent while the worker is stopped (the server still
 * lists it as a poller) is not taken within the CLI's wait, yet the server keeps it and the runbook takes it
 * when a worker comes back. The CLI told the operator to "decide again"; it must say the decision may still
 * be taken, and to look first.
 */
describe('a decision no worker took in time', () => {
  it(
    'is kept by the server and taken when a worker polls again; the CLI says so',
    { timeout: 600_000 },
    async () => {
      await using world = await runbookWorld();
      const input = await seedEdgeFlip(world);
      const handle = await world.start(edgeFlip, input);
      const waiting = await statusWhen(handle, waitingAt('approve-stop-predecessor'), 120_000);
      await world.stopWorkers();

      const approve = await run(
        MESH,
        [
          'runbook',
          'approve',
          input.node,
          'approve-stop-predecessor',
          '--evidence',
          waiting.waiting?.evidence ?? '',
          '--as',
          'bob',
        ],
        { env: { ...process.env, MESH_TASK_QUEUE: world.taskQueue } },
      ).then(
        () => assert.fail('the approval was taken with no worker running'),
        (error: { code: number; stderr: string }) => error,
      );
      assert.equal(approve.code, 1, approve.stderr);
      assert.match(approve.stderr, /the server keeps it/);
      assert.match(approve.stderr, /before you decide again/);

      await world.startWorker({ nodeQueues: { localMesh: world.stateDir } });
      const done: RunbookStatus = await handle.result();
      assert.equal(done.phase, 'completed', done.outcome);
      assert.deepEqual(
        done.decisions.map((d) => `${d.gate}: ${d.action} by ${d.by}`),
        ['approve-stop-predecessor: approve by bob'],
        'the approval the CLI could not confirm was taken, once',
      );
    },
  );
});
