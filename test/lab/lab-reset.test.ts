import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { lastRunOf, needsClearing } from '../../activities/runbook/last-run';
import { Lab } from '../support/lab';
import { edgeFlipArgs, labStatusWhen, seedEdges } from '../support/lab-stories';

const NODE = 'novox';

describe('the lab between stories: cleared as an operator clears it', () => {
  let lab: Lab;
  before(async () => {
    lab = await Lab.story();
  });

  it("a host whose runbook ended with its rollback failed is cleared through `mesh runbook clear`, said so, and the next story's runbook starts there", async () => {
    await seedEdges(lab, [NODE], [NODE]);
    const start = () =>
      lab.cli('runbook', 'start', 'edge-flip', ...edgeFlipArgs(lab, NODE), '--yes', '--detach');
    const first = await start();
    assert.equal(first.code, 0, first.stderr);
    const { client, connection } = await lab.client();
    try {
      const handle = client.workflow.getHandle(`runbook-${NODE}`);
      await labStatusWhen(handle, (s) => s.waiting?.gate === 'gate-apply');
      // The controller forgets the node: the undo of assign-successor is refused, and the operator gives it up.
      await lab.meshctl('reset');
      await handle.cancel();
      await labStatusWhen(handle, (s) => s.waiting?.actions.includes('give-up') === true);
      const gaveUp = await lab.cli('runbook', 'decide', NODE, 'give-up');
      assert.equal(gaveUp.code, 0, gaveUp.stderr);
      await handle.result().catch(() => undefined);
      assert.ok(needsClearing(await lastRunOf(client, `runbook-${NODE}`)), 'its rollback failed');

      const said = await lab.reset();
      assert.equal(said.length, 1, said.join('\n'));
      assert.match(
        said[0] ?? '',
        new RegExp(`^cleared ${NODE}: by lab-reset .*: the lab resets its hosts between stories; `),
      );
      const cleared = await lastRunOf(client, `runbook-${NODE}`);
      assert.equal(cleared.kind, 'cleared');

      await seedEdges(lab, [NODE], [NODE]);
      const next = await start();
      assert.equal(next.code, 0, next.stderr);
      await labStatusWhen(
        client.workflow.getHandle(`runbook-${NODE}`),
        (s) => s.waiting?.gate === 'gate-apply',
      );
      // The reset terminates that one while it changes the node, then clears the node, as an operator would.
      const again = await lab.reset();
      assert.equal(again.length, 1, again.join('\n'));
      assert.match(again[0] ?? '', new RegExp(`was terminated while it changed ${NODE}`));
    } finally {
      await connection.close();
    }
  });
});
