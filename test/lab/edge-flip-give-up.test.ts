import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { WorkflowHandle } from '@temporalio/client';
import { getWithHost } from '../../activities/probes/http-get';
import { pauseUpdate, resumeUpdate, type RunbookStatus } from '../../workflows/contracts';
import { Lab } from '../support/lab';
import { edgeFlipArgs, labStatusWhen, PUBLIC_NAMES, PUBLIC_PORT, seedEdges } from '../support/lab-stories';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const ctl = (...args: string[]) => run('bash', [join(ROOT, 'scripts', 'lab', 'ctl.sh'), ...args]);
const NODE = 'novox';

/** What each public name answers on the node's public address: its body, or why it did not answer. */
async function answers(lab: Lab): Promise<string[]> {
  const address = new URL(`http://${lab.host(NODE).ip}:${PUBLIC_PORT}`);
  return Promise.all(
    PUBLIC_NAMES.map(async (name) => {
      const answer = await getWithHost(address, name, 5_000, true);
      return 'body' in answer ? answer.body.trim() : `${name}: ${JSON.stringify(answer)}`;
    }),
  );
}

const pause = (handle: WorkflowHandle) =>
  handle.executeUpdate(pauseUpdate, { args: [{ by: 'carol', reason: 'hold the flip before gate-clean' }] });

/**
 * Holds the flip at the boundary before gate-clean, where the clean push has removed caddy's containers: a
 * pause sent once unassign-predecessor runs holds before the clean push or, when that has begun, before
 * gate-clean; held before the push, the runbook is let go and paused again while the push runs (an
 * activity through the controller, much longer than two Updates).
 */
async function holdBeforeGateClean(handle: WorkflowHandle): Promise<RunbookStatus> {
  const step = (s: RunbookStatus, name: string) => s.steps.find((x) => x.name === name)?.state;
  await labStatusWhen(handle, (s) => ['running', 'done'].includes(step(s, 'unassign-predecessor') ?? ''));
  await pause(handle);
  let held = await labStatusWhen(handle, (s) => s.paused?.holdsBefore !== undefined);
  if (held.paused?.holdsBefore === 'push') {
    await handle.executeUpdate(resumeUpdate, { args: [{ by: 'carol' }] });
    await pause(handle);
    held = await labStatusWhen(handle, (s) => s.paused?.holdsBefore !== undefined);
  }
  assert.equal(held.paused?.holdsBefore, 'gate-clean', JSON.stringify(held.steps));
  return held;
}

/** The person who looked at the node clears it: a lab reset does not, and the next story would be refused. */
const clear = (lab: Lab) =>
  lab.cli(
    'runbook',
    'clear',
    NODE,
    '--reason',
    'route-proxy serves every name; the lab is reset next',
    '--as',
    'carol',
  );

describe('give-up ends the undo, on the production-shaped lab with its controller killed', () => {
  let lab: Lab;
  before(async () => {
    lab = await Lab.story();
  });
  // Whatever the story's end, the node it may leave needing clearing is cleared for the next story.
  after(async () => {
    await clear(Lab.open());
  });

  it('an edge flip aborted before gate-clean with meshd killed, give-up at reassign-predecessor: the public names still answer', async (t) => {
    await seedEdges(lab, [NODE]);
    const started = await lab.cli(
      'runbook',
      'start',
      'edge-flip',
      ...edgeFlipArgs(lab, NODE),
      '--yes',
      '--detach',
    );
    assert.equal(started.code, 0, started.stderr);
    const { client, connection } = await lab.client();
    try {
      const handle = client.workflow.getHandle(`runbook-${NODE}`);
      await labStatusWhen(handle, (s) => s.waiting?.gate === 'approve-stop-predecessor');
      const approve = await lab.cli('runbook', 'approve', NODE, 'approve-stop-predecessor', '--as', 'carol');
      assert.equal(approve.code, 0, approve.stderr);
      await holdBeforeGateClean(handle);
      assert.deepEqual(
        await lab.engine(NODE).listByLabels({ 'org.meshctl.module': 'caddy' }),
        [],
        'the clean push removed caddy',
      );
      for (const body of await answers(lab)) assert.match(body, /served by route-proxy on novox\./);

      await ctl('kill', 'meshd');
      try {
        await handle.cancel();
        // reassign-predecessor retries through the controller for about six minutes, then waits.
        const stuck = await labStatusWhen(handle, (s) => s.waiting?.gate === 'reassign-predecessor', 600_000);
        t.diagnostic(`reassign-predecessor waits: ${stuck.waiting?.reason ?? ''}`);
        const givenUp = await lab.cli('runbook', 'decide', NODE, 'give-up', '--as', 'carol');
        assert.equal(givenUp.code, 0, givenUp.stderr);
        const ended = await labStatusWhen(
          handle,
          (s) => !['running', 'waiting'].includes(s.phase) || s.waiting?.gate === 'restart-predecessor',
        );
        assert.equal(ended.phase, 'failed', JSON.stringify(ended.waiting ?? ended.outcome));
        assert.match(
          ended.outcome ?? '',
          /not run after the give-up: restart-predecessor, unassign-successor$/,
        );
        for (const body of await answers(lab)) assert.match(body, /served by route-proxy on novox\./);
      } finally {
        await ctl('up');
      }
    } finally {
      await connection.close();
    }

    // The controller back, nothing of the runbook acts any more: the node keeps its edge, and waits for a person.
    for (const body of await answers(lab)) assert.match(body, /served by route-proxy on novox\./);
    const next = await lab.cli(
      'runbook',
      'start',
      'edge-flip',
      ...edgeFlipArgs(lab, NODE),
      '--yes',
      '--detach',
    );
    assert.notEqual(next.code, 0, next.stdout);
    assert.match(next.stderr, /mesh runbook clear novox/);
    const cleared = await clear(lab);
    assert.equal(cleared.code, 0, cleared.stderr);
  });
});
