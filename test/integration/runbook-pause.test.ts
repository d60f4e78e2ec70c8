// harness: own dev server: its edge-flip fleet runbook is runbook-fleet-route-proxy, one id per namespace that other files start too
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { edgeFlip } from '../../workflows';
import { pauseUpdate, resumeUpdate, runbookWorkflowId, statusQuery } from '../../workflows/contracts';
import { fleetWorkflowId } from '../../workflows/fleet/contracts';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { answerNode, fleetWaitsOrEnds, nodeStarted, seedFleet, startFleet } from '../support/edge-flip-fleet';
import { MESH } from '../support/mesh-cli';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import {
  closedFailing,
  decide,
  httpBody,
  isRunning,
  moduleContainers,
  statusWhen,
  stepState,
  waitingAt,
} from '../support/runbooks';

const run = promisify(execFile);

async function mesh(world: RunbookWorld, ...args: string[]) {
  const env = { ...process.env, MESH_TASK_QUEUE: world.taskQueue, NO_COLOR: '1' };
  try {
    const { stdout, stderr } = await run(MESH, ['runbook', ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    return error as { code: number; stdout: string; stderr: string };
  }
}

describe('pause and resume at will (real Temporal, real Docker)', () => {
  it('holds at the next step boundary with who and why, refuses a second pause, and goes on after resume', async () => {
    await using world = await runbookWorld();
    const input = await seedEdgeFlip(world);
    const handle = await world.start(edgeFlip, input);
    await statusWhen(handle, waitingAt('approve-stop-predecessor'));

    const paused = await mesh(
      world,
      'pause',
      input.node,
      '--reason',
      'the change window closed',
      '--as',
      'carol',
    );
    assert.equal(paused.code, 0, paused.stderr);
    assert.match(
      paused.stdout,
      /^paused runbook-\S+ \(by carol: the change window closed\); it holds at its next step boundary/,
    );
    const again = await mesh(world, 'pause', input.node, '--reason', 'me too', '--as', 'dave');
    assert.equal(again.code, 2, again.stderr);
    assert.match(
      again.stderr,
      /is already paused by carol since \d\d:\d\d:\d\d UTC \(the change window closed\); resume it first\./,
    );
    const noReason = await mesh(world, 'pause', input.node, '--reason', ' ');
    assert.equal(noReason.code, 2, noReason.stderr);

    // The approval is answered; the pause holds before the next step: the predecessor still serves.
    await decide(handle, 'approve');
    const held = await statusWhen(handle, (s) => s.paused?.holdsBefore !== undefined);
    assert.equal(held.paused?.holdsBefore, 'recheck-successor');
    assert.equal(held.paused?.by, 'carol');
    assert.equal(held.phase, 'running');
    assert.equal(stepState(held, 'stop-predecessor'), 'pending');
    const shown = await mesh(world, 'status', input.node);
    assert.match(
      shown.stdout,
      /paused by carol at .* UTC \(the change window closed\); holds before recheck-successor; resume with `mesh runbook resume runbook-/,
    );
    assert.match(await httpBody(input.publicAddress), /served by caddy/);

    const resumed = await mesh(world, 'resume', input.node, '--as', 'erin');
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(
      resumed.stdout,
      /resumed runbook-\S+ \(by erin\); it was paused by carol \(the change window closed\)\./,
    );
    const notPaused = await mesh(world, 'resume', input.node);
    assert.ok([0, 2].includes(notPaused.code));
    const done = await handle.result();
    assert.equal(done.phase, 'completed', done.outcome);
    assert.equal(done.paused ?? null, null);
    const ended = await mesh(world, 'pause', input.node, '--reason', 'too late');
    assert.equal(ended.code, 2, ended.stderr);
    assert.match(ended.stderr, /has already ended \(completed\); there is nothing left to pause\./);
  });

  it('never holds between stop-predecessor and probe-public: a pause sent while the predecessor stops holds after the public names are proven', async () => {
    const hook: { pauseNow?: () => Promise<unknown> } = {};
    await using world = await runbookWorld({
      wrap: (real) => ({
        stopModuleContainers: async (args) => {
          const pause = hook.pauseNow;
          delete hook.pauseNow; // once: the undo may stop containers too
          await pause?.();
          return real.stopModuleContainers(args);
        },
      }),
    });
    const input = await seedEdgeFlip(world);
    const handle = await world.start(edgeFlip, input);
    hook.pauseNow = () => handle.executeUpdate(pauseUpdate, { args: [{ by: 'carol', reason: 'stop now' }] });
    await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    await decide(handle, 'approve');

    const held = await statusWhen(handle, (s) => s.paused?.holdsBefore !== undefined);
    assert.equal(held.paused?.holdsBefore, 'unassign-predecessor', 'not before probe-public');
    assert.equal(stepState(held, 'probe-public'), 'done');
    assert.match(await httpBody(input.publicAddress), /served by route-proxy/);
    assert.equal(stepState(held, 'unassign-predecessor'), 'pending');

    // An abort while it holds ends it: its undo steps run and the predecessor serves again.
    await handle.cancel();
    const { status } = await closedFailing(handle);
    assert.equal(status.phase, 'aborted', status.outcome);
    assert.equal(stepState(status, 'restart-predecessor'), 'compensated');
    assert.match(await httpBody(input.publicAddress), /served by caddy/);
    const caddy = (await moduleContainers(world.engine, input.node, 'caddy'))[0]?.replace(/^\//, '') ?? '';
    assert.ok(await isRunning(world.engine, caddy));
  });

  it('a paused fleet starts no further node; its running node goes on; resume starts the next', async () => {
    await using world = await runbookWorld();
    const input = await seedFleet(world, { count: 3 });
    const [canary, second] = input.runbooks.map((r) => r.node) as [string, string, string];
    const fleet = await startFleet(world, input);
    try {
      await fleetWaitsOrEnds(fleet);
      await fleet.executeUpdate(pauseUpdate, { args: [{ by: 'carol', reason: 'watch the canary a while' }] });
      assert.equal(await answerNode(world, fleet, canary), 'approve');

      const held = await statusWhen(fleet, (s) => s.paused?.holdsBefore !== undefined, 120_000);
      assert.equal(held.paused?.holdsBefore, second);
      assert.equal(stepState(held, canary), 'done', 'the running node went on to its end');
      assert.equal(await nodeStarted(world, second), false);
      const shown = await mesh(world, 'status', fleetWorkflowId('route-proxy'));
      assert.match(shown.stdout, new RegExp(`paused by carol .*holds before ${second}`));

      await fleet.executeUpdate(resumeUpdate, { args: [{ by: 'erin' }] });
      await statusWhen(
        world.client.workflow.getHandle(runbookWorkflowId(second)),
        waitingAt('approve-stop-predecessor'),
        120_000,
      );
      assert.equal((await fleet.query(statusQuery)).paused ?? null, null);
    } finally {
      await fleet.cancel();
      await fleet.result().catch(() => undefined);
    }
  });
});
