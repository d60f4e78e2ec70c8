import { signWithKey } from '../../cli/runbook/decide/sign-with-key';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { edgeFlip } from '../../workflows';
import { statusQuery } from '../../workflows/contracts';
import { RunbookPolicy } from '../../workflows/policy';
import { WAITING_QUERY } from '../../workflows/search-attributes';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { HostileReasonMesh } from '../support/hostile-reason-mesh';
import { MESH } from '../support/mesh-cli';
import { runbookWorld } from '../support/runbook-world';
import { decide, statusWhen, waitingAt } from '../support/runbooks';
import { decisionShown, TemporalWebUi } from '../support/web-ui';

const ARTIFACTS = join(__dirname, '..', 'artifacts', 'web-ui-runbook');

function uiUrl(): string {
  const url = process.env.TEMPORAL_UI_URL;
  if (!url) throw new Error('TEMPORAL_UI_URL is not set: run tests through scripts/run-tests.ts');
  return url;
}

describe('an operator follows and decides an edge flip in the Temporal Web UI (headless Debian chromium, real dev server)', () => {
  let ui: TemporalWebUi;

  before(async () => {
    ui = await TemporalWebUi.launch({
      baseUrl: uiUrl(),
      failureScreenshotDir: ARTIFACTS,
      actionTimeoutMs: 60_000,
    });
  });
  after(() => ui?.close());

  it('the hold shows its sentence in the details; take from the UI continues it; approval from the UI completes it', async () => {
    await using world = await runbookWorld();
    const input = await seedEdgeFlip(world, { leftovers: true, startedBy: 'alice' });
    const handle = await world.start(edgeFlip, input);
    const { node } = input;
    const held = await statusWhen(handle, waitingAt('gate-apply'));
    // The UI renders markdown with typographic quotes: match the sentence up to its first quote.
    const sentence = (held.waiting?.reason ?? '').split('"')[0] ?? '';
    assert.equal(held.waiting?.verdict, 'held');

    const page = await ui.waitForCurrentDetails(handle.workflowId, sentence);
    assert.equal(page.summary, `edge-flip on ${node}: caddy → route-proxy (started by alice)`);
    assert.ok(page.details.includes('approve-stop-predecessor'), page.details);
    assert.ok(page.currentDetails.includes(`Evidence ${held.waiting?.evidence}`));
    assert.ok(page.currentDetails.includes('Send an Update'));
    await ui.screenshot(join(ARTIFACTS, 'waiting-details.png'));

    const listed = await ui.listWorkflowIds(`${WAITING_QUERY} AND MeshNode = '${node}'`, (ids) =>
      ids.includes(handle.workflowId),
    );
    assert.deepEqual(listed, [handle.workflowId]);
    await ui.screenshot(join(ARTIFACTS, 'waiting-list.png'));

    const take = await ui.sendUpdate(
      handle.workflowId,
      'decide',
      decisionShown(page.currentDetails, 'take', 'carol'),
    );
    assert.deepEqual(take, { succeeded: true });
    const approval = await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    assert.deepEqual(
      approval.decisions.map((d) => [d.gate, d.action, d.by, d.evidence]),
      [['gate-apply', 'take', 'carol', held.waiting?.evidence]],
    );

    const atApproval = await ui.waitForCurrentDetails(
      handle.workflowId,
      `Evidence ${approval.waiting?.evidence}`,
    );
    const initiator = await ui.sendUpdate(
      handle.workflowId,
      'decide',
      decisionShown(atApproval.currentDetails, 'approve', 'alice'),
      { screenshotTo: join(ARTIFACTS, 'four-eyes-refused.png') },
    );
    assert.equal(initiator.succeeded, false);
    assert.equal(
      initiator.succeeded === false && initiator.message,
      'alice started this runbook and may not also approve approve-stop-predecessor (four eyes); ask another operator.',
    );
    const stale = await ui.sendUpdate(
      handle.workflowId,
      'decide',
      decisionShown(page.currentDetails, 'take', 'bob'),
    );
    assert.equal(stale.succeeded, false);
    assert.match(
      stale.succeeded === false ? stale.message : '',
      /^Gate gate-apply was already decided on evidence [0-9a-f]{10}: take by carol at \d\d:\d\d:\d\d UTC; the runbook now waits at approve-stop-predecessor\.$/,
    );

    const approve = await ui.sendUpdate(
      handle.workflowId,
      'decide',
      decisionShown(atApproval.currentDetails, 'approve', 'bob'),
    );
    assert.deepEqual(approve, { succeeded: true });
    await ui.waitForStatus(handle.workflowId, 'Completed');
    const done = await handle.query(statusQuery);
    assert.equal(done.phase, 'completed');
    assert.deepEqual(
      done.refused.map((r) => [r.by, r.action]),
      [['alice', 'approve']],
    );
    const final = await ui.waitForCurrentDetails(handle.workflowId, 'phase completed');
    assert.ok(final.currentDetails.includes('approve at approve-stop-predecessor by bob'));
    await ui.screenshot(join(ARTIFACTS, 'completed-details.png'));
  });

  it('pause and resume from the UI: the pause holds at the next boundary with who and why, a second is refused, resume goes on', async () => {
    await using world = await runbookWorld();
    const input = await seedEdgeFlip(world, { startedBy: 'alice' });
    const handle = await world.start(edgeFlip, input);
    await statusWhen(handle, waitingAt('approve-stop-predecessor'));

    const pause = await ui.sendUpdate(handle.workflowId, 'pause', { by: 'carol', reason: 'change freeze' });
    assert.deepEqual(pause, { succeeded: true });
    const second = await ui.sendUpdate(
      handle.workflowId,
      'pause',
      { by: 'dave', reason: 'me too' },
      { screenshotTo: join(ARTIFACTS, 'second-pause-refused.png') },
    );
    assert.equal(second.succeeded, false);
    assert.match(
      second.succeeded === false ? second.message : '',
      /^runbook-\S+ is already paused by carol since \d\d:\d\d:\d\d UTC \(change freeze\); resume it first\.$/,
    );

    await decide(handle, 'approve', undefined, 'bob');
    const held = await statusWhen(handle, (s) => s.paused?.holdsBefore !== undefined);
    assert.equal(held.paused?.holdsBefore, 'recheck-successor');
    const page = await ui.waitForCurrentDetails(handle.workflowId, 'holds before recheck-successor');
    assert.ok(page.currentDetails.includes('paused by carol'), page.currentDetails);
    assert.ok(page.currentDetails.includes('Update resume with {"by": "<your name>"}'), page.currentDetails);
    await ui.screenshot(join(ARTIFACTS, 'paused-details.png'));
    assert.equal((await handle.query(statusQuery)).paused?.holdsBefore, 'recheck-successor', 'still held');

    assert.deepEqual(await ui.sendUpdate(handle.workflowId, 'resume', { by: 'erin' }), { succeeded: true });
    await ui.waitForStatus(handle.workflowId, 'Completed');
    const done = await handle.query(statusQuery);
    assert.equal(done.phase, 'completed', done.outcome);
    assert.equal(done.paused, null);
  });

  it('a decision signed by mesh runbook sign, pasted into the Update dialog, is taken where the policy requires signatures; unsigned is refused', async () => {
    const keys = mkdtempSync(join(tmpdir(), 'mesh-ui-keys-'));
    try {
      const key = join(keys, 'dave');
      const starter = join(keys, 'alice');
      for (const name of ['dave', 'alice'])
        execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', join(keys, name)]);
      const policy = RunbookPolicy.parse({
        signers: ['dave', 'alice']
          .map((n) => `${n} ${readFileSync(join(keys, `${n}.pub`), 'utf8')}`)
          .join(''),
        signed: { 'approve-stop-predecessor': 'required' },
      });
      await using world = await runbookWorld({ deps: { policy } });
      const input = await seedEdgeFlip(world, { startedBy: 'alice' });
      // The policy signs its gate, so the start is signed too (mesh runbook start --key).
      const handle = await world.start(edgeFlip, input, {
        signStart: (statement) => signWithKey(starter, statement, 'the start'),
      });
      await statusWhen(handle, waitingAt('approve-stop-predecessor'));
      const page = await ui.waitForCurrentDetails(handle.workflowId, 'mesh runbook sign');
      const unsigned = await ui.sendUpdate(
        handle.workflowId,
        'decide',
        decisionShown(page.currentDetails, 'approve', 'dave'),
      );
      assert.equal(unsigned.succeeded, false);
      assert.match(
        unsigned.succeeded === false ? unsigned.message : '',
        /^approve-stop-predecessor takes signed decisions only/,
      );

      const env = { ...process.env, MESH_TASK_QUEUE: world.taskQueue, NO_COLOR: '1' };
      // Not execFileSync: it would block this process's worker, which must answer the CLI's status query.
      const { stdout: printed } = await promisify(execFile)(
        MESH,
        ['runbook', 'sign', input.node, 'approve-stop-predecessor', 'approve', '--as', 'dave', '--key', key],
        { env },
      );
      const signed = await ui.sendUpdate(handle.workflowId, 'decide', JSON.parse(printed), {
        screenshotTo: join(ARTIFACTS, 'signed-decision.png'),
      });
      assert.deepEqual(signed, { succeeded: true });
      const done = await statusWhen(handle, (s) => s.phase === 'completed');
      assert.equal(done.decisions.at(-1)?.signer?.principal, 'dave');
      const final = await ui.waitForCurrentDetails(handle.workflowId, 'phase completed');
      assert.ok(final.currentDetails.includes('by dave (signed, key SHA256:'), final.currentDetails);
    } finally {
      rmSync(keys, { recursive: true, force: true });
    }
  });

  it("a node's hold reason with Markdown, links, an image tag and code spans shows as text in the details", async () => {
    await using world = await runbookWorld({ mesh: (stateDir) => new HostileReasonMesh({ stateDir }) });
    const input = await seedEdgeFlip(world, { leftovers: true });
    const handle = await world.start(edgeFlip, input);
    await statusWhen(handle, waitingAt('gate-apply'));
    const page = await ui.waitForCurrentDetails(handle.workflowId, 'not bold');
    await ui.screenshot(join(ARTIFACTS, 'hostile-reason-details.png'));
    for (const typed of [
      // The UI curls straight quotes (onerror=“document.title=1”); everything else shows as typed.
      '*not bold* _nor this_ [x](javascript:alert(1)) <img src=x onerror=',
      'document.title=1',
      '> `code` #',
      '\\u001b[2J\\u001b]0;pwned\\u0007 over\\u202eesrever\\u009b31m',
    ])
      assert.ok(
        page.currentDetails.includes(typed),
        `the details do not show "${typed}" as typed:\n${page.currentDetails}`,
      );
    const details = ui.page.frameLocator('#user-metadata-current-details');
    assert.equal(await details.locator('img').count(), 0, 'no image element');
    assert.equal(await details.locator('a[href^="javascript"]').count(), 0, 'no javascript: link');
    assert.equal(await details.locator('em, code', { hasText: /not bold|^code$/ }).count(), 0);
    await handle.cancel();
  });
});
