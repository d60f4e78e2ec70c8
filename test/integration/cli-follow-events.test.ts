import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { automaticAnswer } from '../../cli/runbook/demo/story';
import type { RunbookClient } from '../../cli/runbook/client';
import { follow } from '../../cli/runbook/follow/follow';
import { TemporalReads } from '../../client/temporal-reads/reads';
import { edgeFlip } from '../../workflows';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { decide } from '../support/runbooks';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { connectHarnessClient, harnessTarget } from '../support/temporal';

/** A poll so long that a follower which only polls would never look twice within the test. */
const AN_HOUR = 3_600_000;

/** The CLI's client over a connection of its own, as `mesh runbook watch` has. */
async function cliClient(world: RunbookWorld): Promise<RunbookClient & AsyncDisposable> {
  const { client, connection } = await connectHarnessClient();
  const { address, namespace } = harnessTarget();
  const reads = new TemporalReads({ address }, namespace);
  return {
    reads,
    client,
    connection,
    target: { address, namespace },
    taskQueue: world.taskQueue,
    within: (ms, call) => connection.withDeadline(Date.now() + ms, call),
    hasWorker: async () => true,
    [Symbol.asyncDispose]: () => {
      reads.close();
      return connection.close();
    },
  };
}

describe('following a runbook (CLI watch, start and demo; real server, worker and Docker)', () => {
  it(
    'looks again when the history grows: a follower polling once an hour sees every wait and the end',
    { timeout: 180_000 },
    async () => {
      await using world = await runbookWorld();
      const input = await seedEdgeFlip(world, { leftovers: true });
      const handle = await world.start(edgeFlip, input);
      await using rb = await cliClient(world);
      const gates: string[] = [];
      const warnings: string[] = [];
      const warned = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
      process.on('warning', warned);
      // Ctrl-C, as an operator would give up: a follower that never looks again then detaches, and fails.
      const givingUp = setTimeout(() => process.emit('SIGINT'), 120_000);
      try {
        for (;;) {
          const end = await follow(rb, handle.workflowId, {
            stopWhenWaiting: true,
            quiet: true,
            pollMs: AN_HOUR,
          });
          const waiting = end.status?.waiting;
          assert.notEqual(
            end.how,
            'detached',
            `it never looked again after ${gates.join(', ') || 'the start'}`,
          );
          if (end.how !== 'waiting' || !waiting) {
            assert.equal(end.how, 'ended');
            assert.equal(end.status?.phase, 'completed');
            break;
          }
          gates.push(waiting.gate);
          await decide(handle, automaticAnswer(waiting), waiting.gate);
        }
      } finally {
        clearTimeout(givingUp);
        process.off('warning', warned);
      }
      assert.deepEqual(gates, ['gate-apply', 'approve-stop-predecessor']);
      // Each look at a grown history must not leave a listener behind (the demo printed Node's warning).
      assert.deepEqual(warnings, []);
    },
  );
});
