import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import type { RunbookStatus } from '../../workflows/contracts';
import { APPROVAL, askedAnew, atTheApproval, startUserOfA } from '../support/old-data-users';
import { runbookWorld } from '../support/runbook-world';
import { decide, statusWhen } from '../support/runbooks';

/** How many reminders the runbook has sent so far (each one an activity in its history). */
async function remindersSent(handle: WorkflowHandle): Promise<number> {
  const { events } = await handle.fetchHistory();
  return (events ?? []).filter(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'remindOperators',
  ).length;
}

describe('the approval to remove the old data, asked anew, tells the operators at once only when its offer changed (real dev server, local mesh, Docker)', () => {
  it('a second user of A, and the first one gone, ask anew without reminding; remove offered again reminds at once', async () => {
    await using world = await runbookWorld();
    const { forge, handle, approval } = await atTheApproval(world);
    const before = await remindersSent(handle);
    const first = await startUserOfA(world, forge, `${forge.node}-first-user`);
    const second = await startUserOfA(world, forge, `${forge.node}-second-user`).catch(async (e: unknown) => {
      await first.remove({ force: true });
      throw e;
    });
    try {
      // remove is no longer offered: told at once. Each user is a change of its own; which one the watch
      // sees first, the ask without remove is news once.
      let asked = await askedAnew(handle, approval, false);
      const bothSeen = (s: RunbookStatus) => (s.waiting?.reason ?? '').includes('2 container(s) still use');
      if (!bothSeen(asked)) asked = await statusWhen(handle, (s) => askedAnewOf(s, asked) && bothSeen(s));
      await first.remove({ force: true });
      asked = await statusWhen(handle, (s) => askedAnewOf(s, asked) && !bothSeen(s));
      assert.deepEqual(asked.waiting?.actions, ['keep', 'recheck'], 'the second user still uses A');
      await second.remove({ force: true });
      const free = await askedAnew(handle, asked, true);
      await statusWhen(
        handle,
        (s) => s.waiting?.evidence === free.waiting?.evidence && s.waiting?.reminders === 1,
      );
      const sent = (await remindersSent(handle)) - before;
      console.log(`old-data approval asked anew on 4 changes of its users: ${sent} reminders at once`);
      assert.equal(sent, 2, 'one as remove left the offer, one as it came back');
      await decide(handle, 'keep', APPROVAL);
      assert.equal((await handle.result()).phase, 'completed');
    } finally {
      await Promise.all([first, second].map((u) => u.remove({ force: true }).catch(() => undefined)));
    }
  });
});

/** Asked anew at the approval: new evidence since `before`. */
function askedAnewOf(s: RunbookStatus, before: RunbookStatus): boolean {
  return s.waiting?.gate === APPROVAL && s.waiting.evidence !== before.waiting?.evidence;
}
