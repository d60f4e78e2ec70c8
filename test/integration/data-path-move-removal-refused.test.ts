import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunbookStatus } from '../../workflows/contracts';
import { exists, FROM, TO } from '../support/data-move';
import { APPROVAL, askedAnew, atTheApproval, startUserOfA, WAIT_MS } from '../support/old-data-users';
import { runbookWorld } from '../support/runbook-world';
import { decide, decisionRefusal, statusWhen, waitingAt } from '../support/runbooks';

describe('a removal of the old data refused after the approval (real dev server, local mesh, Docker)', () => {
  it('offers keep besides retry and abort: keep ends the move done with A and its new user untouched', async () => {
    await using world = await runbookWorld();
    const { forge, handle, approval: first } = await atTheApproval(world);
    let approval = first;
    // The approval follows A's users; after four quick changes its watch pauses (a minute, doubling), so
    // a user that appears then is seen first by the removal itself, which refuses.
    for (const round of [1, 2]) {
      const passing = await startUserOfA(world, forge, `${forge.node}-passing-user-${round}`);
      const asked = await askedAnew(handle, approval, false);
      // Told at once: the reminder is sent as the new ask begins.
      const inUse = await statusWhen(
        handle,
        (s) => s.waiting?.evidence === asked.waiting?.evidence && s.waiting?.reminders === 1,
        WAIT_MS,
      );
      await passing.remove({ force: true });
      approval = await askedAnew(handle, inUse, true);
    }
    const user = await startUserOfA(world, forge, `${forge.node}-late-user`);
    try {
      await decide(handle, 'remove', APPROVAL);
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

describe('the approval to remove the old data follows its users while it waits (real dev server, local mesh, Docker)', () => {
  it('a user of A that appears asks anew without remove before anyone decides; once it is gone, asked anew with remove', async () => {
    await using world = await runbookWorld();
    const { forge, handle, approval } = await atTheApproval(world);
    const name = `${forge.node}-new-user`;
    const user = await startUserOfA(world, forge, name);
    try {
      const asked = await askedAnew(handle, approval, false);
      // Told at once: the reminder is sent as the new ask begins.
      const inUse = await statusWhen(
        handle,
        (s) => s.waiting?.evidence === asked.waiting?.evidence && s.waiting?.reminders === 1,
        WAIT_MS,
      );
      const createdAt = (await user.inspect()).Created;
      const tookMs = Date.parse(inUse.waiting?.since ?? '') - Date.parse(createdAt);
      console.log(`a new user of A: ${tookMs} ms from Docker's create to the approval asked anew`);
      assert.deepEqual(inUse.waiting?.actions, ['keep', 'recheck']);
      assert.match(
        inUse.waiting?.reason ?? '',
        new RegExp(`container ${name} \\((created|running)\\) mounts`),
      );
      const change = inUse.waiting?.facts.find((f) => f.startsWith('changed while the approval waited'));
      assert.match(
        change ?? '',
        new RegExp(`${forge.node}: now container ${name} .*Docker reported create of ${name}`),
      );
      assert.equal(inUse.decisions.length, 1, 'only the recreate at gate-apply was decided');
      assert.match(
        inUse.steps.find((s) => s.name === APPROVAL)?.note ?? '',
        /not decided: the evidence changed while it waited/,
      );
      const stale = await decisionRefusal(
        handle.executeUpdate('decide', {
          args: [{ action: 'remove', gate: APPROVAL, by: 'bob', evidence: approval.waiting?.evidence }],
        }),
      );
      assert.match(stale, /remove is not an action|stale/, stale);

      await user.remove({ force: true });
      const free = await askedAnew(handle, inUse, true);
      assert.match(free.waiting?.facts.join('\n') ?? '', new RegExp(`no longer container ${name}`));
      await decide(handle, 'remove', APPROVAL);
      const done: RunbookStatus = await handle.result();
      assert.equal(done.phase, 'completed', done.outcome);
      assert.equal(await exists(forge.hostFrom), false, 'A is removed');
    } finally {
      await user.remove({ force: true }).catch(() => undefined);
    }
  });
});
