import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createMeshActivities } from '../../activities/mesh';
import { standInMesh } from '../fixtures/fake-mesh/stand-in';
import { Scratch } from '../support/scratch';

/** Whether a process with this id still exists (signal 0 checks without sending anything). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (alive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return !alive(pid);
}

describe('a slow controller keeps its activity alive and dies with it (recorded stand-in; the real controller cannot run here)', () => {
  const scratch = new Scratch();
  after(() => scratch.cleanup());

  it('heartbeats while the controller runs, and an abort kills the controller and ends the activity within a second', async () => {
    const { mesh, received } = standInMesh(await scratch.dir('command-cancel-'), { timeoutMs: 120_000 });
    const { takeModule } = createMeshActivities({ mesh });
    const env = new MockActivityEnvironment();
    const beats: unknown[] = [];
    let cancelledAt = 0;
    env.on('heartbeat', (details: unknown) => {
      beats.push(details);
      if (cancelledAt === 0) {
        cancelledAt = Date.now();
        env.cancel();
      }
    });
    const started = Date.now();
    await assert.rejects(env.run(takeModule, { module: 'route-proxy', node: 'slowpoke' }), CancelledFailure);
    const endedAt = Date.now();

    assert.deepEqual(beats, [{ mesh: 'take' }], 'a heartbeat while the controller ran');
    assert.ok(cancelledAt - started < 10_000, `first heartbeat after ${cancelledAt - started} ms`);
    assert.ok(
      endedAt - cancelledAt < 1_000,
      `the activity ended ${endedAt - cancelledAt} ms after the abort`,
    );
    const [call] = await received();
    assert.ok(call, 'the stand-in ran');
    assert.ok(await gone(call.pid, 1_000), 'the controller was killed, not left to finish its minute');
  });
});
