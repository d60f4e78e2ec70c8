import assert from 'node:assert/strict';
import type { WorkflowHandle } from '@temporalio/client';
import { BASE_IMAGE } from '../../docker/engine';
import { dataPathMove } from '../../workflows';
import type { RunbookStatus } from '../../workflows/contracts';
import { moveInput, seedForge, type Forge } from './data-move';
import type { RunbookWorld } from './runbook-world';
import { decide, statusWhen, waitingAt } from './runbooks';

export const WAIT_MS = 180_000;
export const APPROVAL = 'approve-remove-old-data';
const SLEEPER = ['sh', '-c', 'trap "exit 0" TERM; sleep 600 & wait'];

/** A container of nobody's module that mounts A, started: a new user of the old data. */
export async function startUserOfA(world: RunbookWorld, forge: Forge, name: string) {
  const user = await world.engine.docker.createContainer({
    name,
    Image: BASE_IMAGE,
    Cmd: SLEEPER,
    HostConfig: { Binds: [`${forge.hostFrom}:/data`] },
  });
  await user.start();
  return user;
}

/** The approval asked anew (new evidence) with `remove` offered or not. */
export function askedAnew(handle: WorkflowHandle, before: RunbookStatus, removeOffered: boolean) {
  return statusWhen(
    handle,
    (s) =>
      waitingAt(APPROVAL)(s) &&
      s.waiting?.evidence !== before.waiting?.evidence &&
      s.waiting?.actions.includes('remove') === removeOffered,
    WAIT_MS,
  );
}

/** A move of the world's forge, waiting at the approval to remove A (remove offered). */
export async function atTheApproval(world: RunbookWorld) {
  const forge = await seedForge(world);
  const handle = await world.start(dataPathMove, moveInput(forge));
  await statusWhen(handle, waitingAt('gate-apply'), WAIT_MS);
  await decide(handle, 'recreate', 'gate-apply');
  const approval = await statusWhen(handle, waitingAt(APPROVAL), WAIT_MS);
  assert.ok(approval.waiting?.actions.includes('remove'), approval.waiting?.reason);
  return { forge, handle, approval };
}
