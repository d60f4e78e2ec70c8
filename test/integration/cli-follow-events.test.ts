import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { automaticAnswer } from '../../cli/runbook/demo/story';
import { follow } from '../../cli/runbook/follow/follow';
import { edgeFlip } from '../../workflows';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { decide } from '../support/runbooks';
import { runbookWorld } from '../support/runbook-world';
import { AN_HOUR, cliClient } from '../support/cli-client';

describe('following a runbook (CLI watch, start and demo; real server, worker and Docker)', () => {
  it(
    'looks again when the history grows: a follower polling once an hour sees every wait and the end',
    { timeout: 600_000 },
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
