import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BASE_IMAGE } from '../../docker/engine';
import { dataPathMove } from '../../workflows';
import type { RunbookStatus } from '../../workflows/contracts';
import { exists, FROM, moveInput, seedForge, TO } from '../support/data-move';
import { runbookWorld } from '../support/runbook-world';
import { decide, statusWhen, waitingAt } from '../support/runbooks';

const WAIT_MS = 60_000;
const SLEEPER = ['sh', '-c', 'trap "exit 0" TERM; sleep 600 & wait'];

describe('a removal of the old data refused after the approval (real dev server, local mesh, Docker)', () => {
  it('offers keep besides retry and abort: keep ends the move done with A and its new user untouched', async () => {
    await using world = await runbookWorld();
    const forge = await seedForge(world);
    const handle = await world.start(dataPathMove, moveInput(forge));
    await statusWhen(handle, waitingAt('gate-apply'), WAIT_MS);
    await decide(handle, 'recreate', 'gate-apply');
    const approval = await statusWhen(handle, waitingAt('approve-remove-old-data'), WAIT_MS);
    assert.ok(approval.waiting?.actions.includes('remove'), approval.waiting?.reason);

    // Someone starts a container on A between the approval's look and the removal.
    const user = await world.engine.docker.createContainer({
      name: `${forge.node}-late-user`,
      Image: BASE_IMAGE,
      Cmd: SLEEPER,
      HostConfig: { Binds: [`${forge.hostFrom}:/data`] },
    });
    try {
      await user.start();
      await decide(handle, 'remove', 'approve-remove-old-data');
      const refused = await statusWhen(handle, waitingAt('remove-old-data'), WAIT_MS);
      assert.equal(refused.waiting?.verdict, 'failed');
      assert.deepEqual(refused.waiting?.actions, ['retry', 'keep', 'abort']);
      assert.match(refused.waiting?.reason ?? '', new RegExp(`${forge.node}-late-user`));
      assert.match(
        refused.waiting?.reason ?? '',
        new RegExp(`keep leaves ${FROM} in place and ends the move done`),
      );

      await decide(handle, 'keep', 'remove-old-data');
      const done: RunbookStatus = await handle.result();
      assert.equal(done.phase, 'completed', done.outcome);
      assert.equal(done.outcome, `${forge.module} runs on ${TO} on ${forge.node}; ${FROM} kept`);
      assert.equal(done.steps.find((s) => s.name === 'remove-old-data')?.state, 'skipped');
      assert.equal(await exists(forge.hostFrom), true, 'A is kept');
      assert.equal((await user.inspect()).State.Running, true, 'its new user runs on');
      const moved = await world.engine.inspect(forge.web);
      assert.deepEqual(
        moved?.Mounts.map((m) => m.Source),
        [forge.hostTo],
        'the module stays on B: nothing was undone',
      );
    } finally {
      await user.remove({ force: true });
    }
  });
});
