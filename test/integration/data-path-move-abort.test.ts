import assert from 'node:assert/strict';
import { open, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { it } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import { hostPathOnNode } from '../../docker/placement';
import type { ModuleSpec } from '../../mesh/schemas';
import { dataPathMove } from '../../workflows';
import type { RunbookStatus } from '../../workflows/contracts';
import {
  digestDifferences,
  exists,
  FROM,
  moveInput,
  scheduledActivities,
  seedForge,
  TO,
  treeDigest,
  type DigestEntry,
  type Forge,
} from '../support/data-move';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { closedFailing, decide, statusWhen, waitingAt } from '../support/runbooks';
import { describe } from '../support/side-by-side';

/**
 * Verification that blocks, and aborts before and after the switch. The worker's copyTree is production's,
 * wrapped so that for the nodes listed in `writeDuringVerify` one file of B changes right after the copy:
 * it simulates a write into B while the copy is verified (same size, other bytes, so only the checksum
 * can tell).
 */

const WAIT_MS = 180_000;
/** The file the simulated write changes, relative to the data dir. */
const CHANGED = 'repos/r3/objects/7.obj';

/** Nodes whose next copy gets one file of B overwritten after it completes. */
const writeDuringVerify = new Set<string>();

/** A world whose copyTree is production's, followed by the simulated write for the nodes listed above. */
const writingWorld = () =>
  runbookWorld({
    wrap: (real, { mesh }) => ({
      async copyTree(input) {
        const result = await real.copyTree(input);
        if (writeDuringVerify.delete(input.node)) {
          const { hostRoot } = await mesh.nodeState(input.node);
          const file = await open(join(hostPathOnNode(hostRoot, input.to), CHANGED), 'r+');
          await file.write('written during verification', 0);
          await file.close();
        }
        return result;
      },
    }),
  });

describe('data-path-move: a checksum mismatch blocks; abort before the switch restores A, after it asks', () => {
  interface Before {
    forge: Forge;
    digest: Map<string, DigestEntry>;
    id: string | undefined;
    spec: ModuleSpec;
  }

  /** Seeds a forge and starts its move; with `mismatch`, the copy's verification will find CHANGED differs. */
  async function begin(
    world: RunbookWorld,
    mismatch: boolean,
  ): Promise<{ handle: WorkflowHandle; before: Before }> {
    const forge = await seedForge(world);
    const before: Before = {
      forge,
      digest: await treeDigest(forge.hostFrom),
      id: (await world.engine.inspect(forge.web))?.Id,
      spec: await world.mesh.moduleSpec(forge.module),
    };
    if (mismatch) writeDuringVerify.add(forge.node);
    const handle = await world.start(dataPathMove, moveInput(forge));
    return { handle, before };
  }

  async function waitAtMismatch(
    world: RunbookWorld,
    handle: WorkflowHandle,
    forge: Forge,
  ): Promise<RunbookStatus> {
    const waiting = await statusWhen(handle, waitingAt('verify-copy'), WAIT_MS);
    assert.equal(waiting.waiting?.verdict, 'failed');
    assert.deepEqual(waiting.waiting?.actions, ['recopy', 'abort']);
    assert.equal(
      waiting.waiting?.reason,
      `The copy of ${FROM} at ${TO} differs in 1 path(s): ${CHANGED} (content, mtime); recopy copies again and verifies, abort restarts ${forge.module} on ${FROM}.`,
    );
    assert.equal(waiting.steps.find((s) => s.name === 'verify-copy')?.note, '1 paths differ');
    for (const later of ['switch-spec', 'push', 'gate-apply'])
      assert.equal(waiting.steps.find((s) => s.name === later)?.state, 'pending', later);
    // Blocked before the switch: the spec still says A, the container is stopped, the policy frozen.
    const spec = await world.mesh.moduleSpec(forge.module);
    assert.deepEqual(
      spec.containers.flatMap((c) => c.mounts.map((m) => m.hostPath)),
      [FROM],
    );
    assert.equal(spec.upgradePolicy, 'manual');
    assert.equal((await world.engine.inspect(forge.web))?.State.Running, false);
    return waiting;
  }

  /** Where an abort before the switch must leave the service: running on A, as it was, with its policy. */
  async function assertBackOnA(world: RunbookWorld, before: Before, status: RunbookStatus): Promise<void> {
    const { forge } = before;
    assert.equal(status.phase, 'aborted', status.outcome);
    const info = await world.engine.inspect(forge.web);
    assert.equal(info?.State.Running, true, 'running again');
    assert.equal(info?.Id, before.id, 'the same container, started again, not recreated');
    assert.deepEqual(
      info?.Mounts.map((m) => m.Source),
      [forge.hostFrom],
    );
    assert.deepEqual(await world.mesh.moduleSpec(forge.module), before.spec, 'spec and policy as before');
    assert.equal(before.spec.upgradePolicy, 'roll-out');
    assert.equal(await exists(forge.hostTo), false, 'B removed');
    assert.deepEqual(digestDifferences(before.digest, await treeDigest(forge.hostFrom)), [], 'A untouched');
    const states = Object.fromEntries(status.steps.map((s) => [s.name, s.state]));
    assert.equal(states['remove-copy'], 'compensated');
    assert.equal(states['restart-on-old-path'], 'compensated');
    assert.equal(states['unfreeze-policy'], 'compensated');
    assert.equal(states['switch-spec'], 'pending');
    // Healthy again on A: its healthcheck fetches index.html from /data.
    await waitUntil(async () => (await world.engine.inspect(forge.web))?.State.Health?.Status === 'healthy');
  }

  it('a write into B during verification blocks at verify-copy naming the path; recopy then completes', async () => {
    await using world = await writingWorld();
    const { handle, before } = await begin(world, true);
    const { forge } = before;
    await waitAtMismatch(world, handle, forge);

    await decide(handle, 'recopy', 'verify-copy');
    await statusWhen(handle, waitingAt('gate-apply'), WAIT_MS);
    await decide(handle, 'recreate', 'gate-apply');
    await statusWhen(handle, waitingAt('approve-remove-old-data'), WAIT_MS);
    await decide(handle, 'remove', 'approve-remove-old-data');
    const done: RunbookStatus = await handle.result();
    assert.equal(done.phase, 'completed', done.outcome);
    assert.deepEqual(
      done.decisions.map((d) => `${d.gate}: ${d.action}`),
      ['verify-copy: recopy', 'gate-apply: recreate', 'approve-remove-old-data: remove'],
    );
    assert.deepEqual(digestDifferences(before.digest, await treeDigest(forge.hostTo)), []);
    assert.deepEqual(
      (await world.engine.inspect(forge.web))?.Mounts.map((m) => m.Source),
      [forge.hostTo],
    );
    const scheduled = scheduledActivities(await handle.fetchHistory());
    assert.equal(scheduled.copyTree, 2, 'copied, copied again');
    assert.equal(scheduled.catchUpCopy, 1, 'caught up before recreating');
    assert.equal(scheduled.verifyTree, 2, 'and verified each time');
  });

  it('abort (cancel) while blocked at verify-copy: running on A again, policy roll-out, B removed', async () => {
    await using world = await writingWorld();
    const { handle, before } = await begin(world, true);
    await waitAtMismatch(world, handle, before.forge);
    await handle.cancel();
    const { status } = await closedFailing(handle);
    assert.equal(status.outcome, 'aborted (cancelled); compensations ran');
    await assertBackOnA(world, before, status);
  });

  it('abort by decision at verify-copy: the same way back to A', async () => {
    await using world = await writingWorld();
    const { handle, before } = await begin(world, true);
    await waitAtMismatch(world, handle, before.forge);
    await decide(handle, 'abort', 'verify-copy');
    const { status } = await closedFailing(handle);
    assert.equal(status.outcome, 'aborted by bob at verify-copy');
    await assertBackOnA(world, before, status);
  });

  /** Aborts at the unrecreated-volume gate, after the spec moved to B; returns the after-switch wait. */
  async function abortAfterSwitch(handle: WorkflowHandle, forge: Forge): Promise<RunbookStatus> {
    await statusWhen(handle, waitingAt('gate-apply'), WAIT_MS);
    await decide(handle, 'abort', 'gate-apply');
    const asking = await statusWhen(handle, waitingAt('after-switch'), WAIT_MS);
    assert.equal(asking.waiting?.verdict, 'approval');
    assert.deepEqual(asking.waiting?.actions, ['revert', 'keep']);
    assert.match(
      asking.waiting?.reason ?? '',
      new RegExp(`revert puts the spec and its containers back on ${FROM}`),
    );
    assert.equal(await exists(forge.hostTo), true, 'B is never removed after the switch');
    return asking;
  }

  it('abort after the switch asks; revert puts spec and container back on A, policy roll-out, B kept', async () => {
    await using world = await writingWorld();
    const { handle, before } = await begin(world, false);
    const { forge } = before;
    await abortAfterSwitch(handle, forge);
    await decide(handle, 'revert', 'after-switch');
    const { status } = await closedFailing(handle);
    assert.equal(status.phase, 'aborted', status.outcome);
    assert.deepEqual(await world.mesh.moduleSpec(forge.module), before.spec);
    const info = await world.engine.inspect(forge.web);
    assert.equal(info?.State.Running, true);
    assert.deepEqual(
      info?.Mounts.map((m) => m.Source),
      [forge.hostFrom],
    );
    assert.deepEqual(
      digestDifferences(before.digest, await treeDigest(forge.hostTo)),
      [],
      'B kept as copied',
    );
  });

  it('abort after the switch, keep: the module really is on B (container recreated there), policy roll-out', async () => {
    await using world = await writingWorld();
    const { handle, before } = await begin(world, false);
    const { forge } = before;
    await abortAfterSwitch(handle, forge);
    assert.match(
      (await statusWhen(handle, waitingAt('after-switch'))).waiting?.reason ?? '',
      new RegExp(
        `keep leaves ${forge.module} on ${TO}, brings over only what changed on ${FROM} and recreates there any container still on ${FROM}\\.$`,
      ),
    );
    // A service that already wrote on B: keep brings A's changes over, never over B's writes.
    await writeFile(join(forge.hostTo, 'b-only.txt'), 'written on B after the switch\n');
    await writeFile(join(forge.hostTo, 'index.html'), 'changed on B after the switch\n');
    await decide(handle, 'keep', 'after-switch');
    const { status } = await closedFailing(handle);
    assert.equal(status.phase, 'aborted', status.outcome);
    assert.equal(await readFile(join(forge.hostTo, 'b-only.txt'), 'utf8'), 'written on B after the switch\n');
    assert.equal(await readFile(join(forge.hostTo, 'index.html'), 'utf8'), 'changed on B after the switch\n');
    const spec = await world.mesh.moduleSpec(forge.module);
    assert.equal(spec.upgradePolicy, 'roll-out');
    assert.deepEqual(
      spec.containers.flatMap((c) => c.mounts.map((m) => m.hostPath)),
      [TO],
    );
    const info = await world.engine.inspect(forge.web);
    assert.equal(info?.State.Running, true);
    // Keep must not end in a silent half-move (spec on B, container on A, roll-out back on): the next
    // ordinary build would move the container for it, which is incident 2 itself.
    assert.deepEqual(
      info?.Mounts.map((m) => m.Source),
      [forge.hostTo],
      'the container runs on B, where the spec says',
    );
    assert.equal(await exists(forge.hostFrom), true, 'A kept');
  });
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, 'timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
