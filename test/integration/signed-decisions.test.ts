import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { promisify } from 'node:util';
import type { WorkflowHandle } from '@temporalio/client';
import { edgeFlip, edgeFlipFleet } from '../../workflows';
import { startEdgeFlipFleet } from '../../client/start-fleet';
import { FLEET_NODE } from '../../workflows/fleet/contracts';
import { seedFleet } from '../support/edge-flip-fleet';
import {
  decideUpdate,
  FAILURE,
  pauseUpdate,
  resumeUpdate,
  runbookWorkflowId,
  statusQuery,
  type Decision,
} from '../../workflows/contracts';
import { RunbookPolicy } from '../../workflows/policy';
import { decisionStatement, type DecisionStatement } from '../../workflows/signing/statement';
import { signWithKey } from '../../cli/runbook/decide/sign-with-key';
import { withSignedStart } from '../../client/sign-start';
import { failedRun, READS_BEFORE_TRUST } from '../support/refusals';
import { testPolicy } from '../support/test-policy';
import { edgeFlipArgs } from '../support/edge-flip-seed';
import { meshRunbook } from '../support/mesh-cli';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { findTemporalCli } from '../../worker/temporal-binary';
import { MESH } from '../support/mesh-cli';
import { harnessTarget } from '../support/temporal';
import { runbookWorld } from '../support/runbook-world';
import { decisionRefusal, statusWhen, waitingAt } from '../support/runbooks';
import { describe } from '../support/side-by-side';

/**
 * Signed decisions (real Temporal, real Docker; keys made by ssh-keygen here, decisions signed by hand with
 * `ssh-keygen -Y sign`): the runbook verifies each signature in the decide Update's validator, so a refused
 * one leaves nothing behind, and four eyes compare the principal the key proves.
 */
/** `text` matched as it is in a regular expression (a key's fingerprint holds `+` and `/`). */
const escaped = (text: string | undefined) => (text ?? '').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

describe('signed decisions: four eyes on keys, not typed names', () => {
  let dir: string;
  let policy: RunbookPolicy;
  const key = (name: string) => join(dir, name);
  const fingerprint = (name: string) =>
    execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${key(name)}.pub`], { encoding: 'utf8' }).split(
      ' ',
    )[1];

  /** `ssh-keygen -Y sign` of the statement, by hand, as an operator without the CLI would. */
  function signByHand(name: string, statement: DecisionStatement, namespace = 'mesh-runbook'): string {
    return execFileSync('ssh-keygen', ['-q', '-Y', 'sign', '-n', namespace, '-f', key(name)], {
      input: decisionStatement(statement),
      encoding: 'utf8',
    });
  }

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mesh-signed-'));
    for (const name of ['alice', 'carol', 'dave', 'mallory'])
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', key(name)]);
    const signer = (name: string) => `${name} ${readFileSync(`${key(name)}.pub`, 'utf8').trim()}`;
    policy = RunbookPolicy.parse({
      signers: [signer('alice'), signer('carol'), signer('dave')].join('\n'),
      signed: { 'approve-stop-predecessor': 'required' },
    });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A start signed with `name`'s key, as mesh runbook start --key signs it: the policy wants signed starts. */
  const startSignedBy = (name: string) => ({
    signStart: (statement: string) => signWithKey(key(name), statement, 'the start'),
  });

  async function where(handle: WorkflowHandle) {
    const status = await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    const { runId } = await handle.describe();
    const statement = {
      namespace: 'default',
      runbook: handle.workflowId,
      run: runId,
      gate: 'approve-stop-predecessor',
      action: 'approve',
      evidence: status.waiting?.evidence ?? '',
      signedAt: new Date().toISOString(),
    };
    return { status, statement };
  }

  it('refuses, each with one sentence and nothing recorded: unsigned, forged, replayed elsewhere, wrong namespace, unknown key, too old, another name', async () => {
    await using world = await runbookWorld({ deps: { policy } });
    const input = await seedEdgeFlip(world, { startedBy: 'alice' });
    const handle = await world.start(edgeFlip, input, startSignedBy('alice'));
    const { status, statement } = await where(handle);
    const evidence = statement.evidence;
    const send = (decision: Decision) =>
      decisionRefusal(handle.executeUpdate(decideUpdate, { args: [decision] }));
    const approve = (signature: string, signedAt = statement.signedAt, by = 'carol'): Decision => ({
      action: 'approve',
      by,
      evidence,
      signature,
      signedAt,
    });
    const mismatch =
      /^The decision's signature is refused: the signature does not match what it claims to sign \(key SHA256:\S+\); it must sign this namespace, runbook, run, gate, action and evidence; sign it with your SSH key/;

    assert.match(
      await send({ action: 'approve', by: 'carol', evidence }),
      /^approve-stop-predecessor takes signed decisions only; sign it with your SSH key: mesh runbook decide runbook-\S+ approve --key <key>\.$/,
    );
    // The Temporal CLI sends the same unsigned Update: refused, with the same sentence.
    const temporalCli = findTemporalCli();
    assert.ok(temporalCli, 'the temporal CLI is installed by scripts/bootstrap.sh');
    const fromTemporalCli = await promisify(execFile)(temporalCli, [
      'workflow',
      'update',
      'execute',
      '--address',
      harnessTarget().address,
      '--workflow-id',
      handle.workflowId,
      '--name',
      'decide',
      '--input',
      JSON.stringify({ action: 'approve', by: 'carol', evidence }),
    ]).then(
      () => 'accepted',
      (error: { stderr: string }) => error.stderr,
    );
    assert.match(fromTemporalCli, /approve-stop-predecessor takes signed decisions only/);
    for (const other of [
      { evidence: '0000000000' },
      { runbook: 'runbook-elsewhere' },
      { run: '00000000-0000-0000-0000-000000000000' },
      { action: 'abort' },
      { gate: 'gate-apply' },
      { namespace: 'production' },
    ])
      assert.match(
        await send(approve(signByHand('carol', { ...statement, ...other }))),
        mismatch,
        JSON.stringify(other),
      );
    assert.equal(
      await send(approve(signByHand('carol', statement, 'git'))),
      `The decision's signature is refused: the signature is for namespace "git", not "mesh-runbook"; it must sign this namespace, runbook, run, gate, action and evidence; sign it with your SSH key: mesh runbook decide ${handle.workflowId} approve --key <key>.`,
    );
    assert.equal(
      await send(approve(signByHand('mallory', statement), statement.signedAt, 'mallory')),
      `Key ${fingerprint('mallory')} is not among the policy's signers; ask for it to be added to the allowed signers, or sign with a key that is.`,
    );
    const old = new Date(Date.now() - 20 * 60_000).toISOString();
    assert.equal(
      await send(approve(signByHand('carol', { ...statement, signedAt: old }), old)),
      `The decision was signed at ${old}, more than 15 min ago (the policy's most); sign it again.`,
    );
    assert.equal(
      await send(approve(signByHand('dave', statement))),
      `The decision says by carol, but key ${fingerprint('dave')} signs for dave; send it under that name.`,
    );
    assert.match(
      await send(approve('-----BEGIN SSH SIGNATURE-----\nAAAA\n-----END SSH SIGNATURE-----')),
      /^The decision's signature is refused: the signature is/,
    );

    const still = await handle.query(statusQuery);
    assert.equal(still.waiting?.evidence, status.waiting?.evidence, 'still waiting on the same evidence');
    assert.deepEqual([still.decisions.length, still.refused.length], [0, 0], 'nothing recorded');
    const history = await handle.fetchHistory();
    assert.equal(
      history.events?.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).length,
      0,
      'no refused decision reached the history',
    );

    await handle.executeUpdate(decideUpdate, { args: [approve(signByHand('carol', statement))] });
    const done = await statusWhen(handle, (s) => s.phase === 'completed');
    assert.deepEqual(done.decisions.at(-1)?.signer, {
      principal: 'carol',
      fingerprint: fingerprint('carol'),
    });
  });

  it("a start is signed too where a gate takes signed decisions only: unsigned, under another's name or changed since, it ends failed having changed nothing; four eyes then compare two keys", async () => {
    await using world = await runbookWorld({ deps: { policy } });
    const input = await seedEdgeFlip(world, { startedBy: 'alice' });
    const refusal = async (handle: WorkflowHandle, sentence: RegExp) => {
      const run = await failedRun(handle);
      assert.equal(run.type, FAILURE.invalidInput, run.message);
      assert.match(run.message, sentence);
      assert.deepEqual(
        run.activities.filter((a) => !READS_BEFORE_TRUST.includes(a)),
        [],
        'nothing changed',
      );
    };
    await refusal(
      await world.start(edgeFlip, input),
      /^The worker's policy takes signed starts only, and this start carries no signature: start it with mesh runbook start \.\.\. --key <your key>/,
    );
    // `start --as bob --key <alice's key>`: the key proves alice, and bob could not approve as a second person.
    await refusal(
      await world.start(edgeFlip, { ...input, startedBy: 'bob' }, startSignedBy('alice')),
      new RegExp(`^The start says startedBy bob, but key ${escaped(fingerprint('alice'))} signs for alice`),
    );
    const signed = withSignedStart(input, startSignedBy('alice').signStart, {
      namespace: 'default',
      runbook: runbookWorkflowId(input.node),
      kind: 'edge-flip',
      node: input.node,
      module: input.module,
      startedBy: 'alice',
    });
    const changed = await world.client.workflow.start('edgeFlip', {
      taskQueue: world.taskQueue,
      workflowId: runbookWorkflowId(input.node),
      args: [{ ...signed, publicNames: [...input.publicNames, 'elsewhere.example'] }],
    });
    await refusal(
      changed,
      /^The start's signature is refused: the signature does not match what it claims to sign/,
    );

    // The CLI reads the same policy: without a key it refuses before anything starts (one sentence, exit 2).
    const lastRun = (await world.client.workflow.getHandle(runbookWorkflowId(input.node)).describe()).runId;
    const config = join(dir, 'signed-starts.yaml');
    writeFileSync(config, 'policy:\n  signed: { approve-stop-predecessor: required }\n');
    const unsigned = await promisify(execFile)(
      MESH,
      ['runbook', 'start', ...edgeFlipArgs(input), '--as', 'alice', '--detach'],
      { env: { ...process.env, MESH_TASK_QUEUE: world.taskQueue, MESH_CONFIG: config, NO_COLOR: '1' } },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    assert.equal(unsigned.code, 2, unsigned.stderr);
    assert.match(
      unsigned.stderr,
      /^error: The policy takes signed starts only \(a gate of edge-flip takes signed decisions only\), and no key signs this one\.\n.*--key <your SSH key>/,
    );
    const latest = await world.client.workflow.getHandle(runbookWorkflowId(input.node)).describe();
    assert.equal(latest.runId, lastRun, 'nothing started');

    // Through the CLI, as an operator signs a start: alice proven at the start, then alice's own key at the stop.
    const started = await meshRunbook(
      world,
      'start',
      ...edgeFlipArgs(input),
      '--as',
      'alice',
      '--key',
      key('alice'),
      '--detach',
    );
    assert.equal(started.code, 0, started.stderr);
    const handle = world.client.workflow.getHandle(runbookWorkflowId(input.node));
    const { statement, status } = await where(handle);
    assert.deepEqual(status.startSigner, { principal: 'alice', fingerprint: fingerprint('alice') });
    const signedApproval = (name: string): Decision => ({
      action: 'approve',
      by: name,
      evidence: statement.evidence,
      signature: signByHand(name, statement),
      signedAt: statement.signedAt,
    });
    assert.match(
      await decisionRefusal(handle.executeUpdate(decideUpdate, { args: [signedApproval('alice')] })),
      /^alice started this runbook and may not also approve approve-stop-predecessor \(four eyes\)/,
    );
    await handle.executeUpdate(decideUpdate, { args: [signedApproval('dave')] });
    const done = await statusWhen(handle, (s) => s.phase === 'completed', 120_000);
    assert.equal(done.decisions.at(-1)?.signer?.principal, 'dave');
  });

  it("a fleet's approval whose signer's key left the worker's signers stands for no later node: it asks its own", async () => {
    const changing = testPolicy(RunbookPolicy.parse({ ...policy }));
    await using world = await runbookWorld({ deps: { policy: changing } });
    const input = { ...(await seedFleet(world, { count: 2 })), approvals: 'canary-then-waves' as const };
    const [canary, later] = input.runbooks.map((r) => r.node) as [string, string];
    world.owns(`${FLEET_NODE}-${input.module}`);
    const fleet = await startEdgeFlipFleet(world.client, edgeFlipFleet, input, {
      taskQueue: world.taskQueue,
      ...startSignedBy('alice'),
    });
    const signedAt = async (handle: WorkflowHandle, gate: string, name: string) => {
      const { waiting } = await statusWhen(handle, waitingAt(gate));
      const { runId } = await handle.describe();
      const statement = {
        namespace: 'default',
        runbook: handle.workflowId,
        run: runId,
        gate,
        action: 'approve',
        evidence: waiting?.evidence ?? '',
        signedAt: new Date().toISOString(),
      };
      return handle.executeUpdate(decideUpdate, {
        args: [
          {
            action: 'approve',
            by: name,
            evidence: statement.evidence,
            signature: signByHand(name, statement),
            signedAt: statement.signedAt,
          },
        ],
      });
    };
    await signedAt(
      world.client.workflow.getHandle(runbookWorkflowId(canary)),
      'approve-stop-predecessor',
      'dave',
    );
    await statusWhen(fleet, waitingAt('approve-waves'), 120_000);
    // Held between node starts: the later node starts only once carol's key is gone from the worker's signers.
    await fleet.executeUpdate(pauseUpdate, { args: [{ by: 'dave', reason: 'rotate a key' }] });
    await signedAt(fleet, 'approve-waves', 'carol');
    await statusWhen(fleet, (s) => s.paused?.holdsBefore === later);
    changing.signers = changing.signers
      .split('\n')
      .filter((line) => !line.startsWith('carol '))
      .join('\n');
    await fleet.executeUpdate(resumeUpdate, { args: [{ by: 'dave' }] });
    const node = world.client.workflow.getHandle(runbookWorkflowId(later));
    const asked = await statusWhen(node, waitingAt('approve-stop-predecessor'), 120_000);
    const reason = asked.waiting?.reason ?? '';
    const said = `The fleet's approval (approve-waves of ${fleet.workflowId}, by carol) no longer stands: key ${fingerprint('carol')} is not among the worker's signers for carol any more; this node asks its own.`;
    assert.ok(reason.startsWith(said), reason);
    await signedAt(node, 'approve-stop-predecessor', 'dave');
    const done = await statusWhen(fleet, (s) => s.phase === 'completed', 120_000);
    assert.equal(done.phase, 'completed', done.outcome);
  });

  it("refuses a key removed from the worker's signers since the runbook started (the test changes the in-process worker's policy, as a restart with a new config would), on record", async () => {
    // The very object the in-process worker reads (testPolicy keeps it when it names its limits).
    const changing = testPolicy(RunbookPolicy.parse({ ...policy }));
    await using world = await runbookWorld({ deps: { policy: changing } });
    const handle = await world.start(
      edgeFlip,
      await seedEdgeFlip(world, { startedBy: 'alice' }),
      startSignedBy('alice'),
    );
    const { statement } = await where(handle);
    changing.signers = changing.signers
      .split('\n')
      .filter((line) => !line.startsWith('dave '))
      .join('\n');
    const signedBy = (name: string): Decision => ({
      action: 'approve',
      by: name,
      evidence: statement.evidence,
      signature: signByHand(name, statement),
      signedAt: statement.signedAt,
    });
    assert.equal(
      await decisionRefusal(handle.executeUpdate(decideUpdate, { args: [signedBy('dave')] })),
      `Key ${fingerprint('dave')} no longer signs for dave: the worker's signers changed since this runbook started; sign with a key that is among them.`,
    );
    const refused = await handle.query(statusQuery);
    assert.deepEqual(
      refused.refused.map((r) => [r.by, r.signer?.fingerprint]),
      [['dave', fingerprint('dave')]],
      'the refusal is on record',
    );
    await handle.executeUpdate(decideUpdate, { args: [signedBy('carol')] });
    const done = await statusWhen(handle, (s) => s.phase === 'completed');
    assert.equal(done.decisions.at(-1)?.signer?.principal, 'carol');
  });

  it('mesh runbook approve --key signs with the key file; four eyes compare the principal the key proves', async () => {
    await using world = await runbookWorld({ deps: { policy } });
    const input = await seedEdgeFlip(world, { startedBy: 'carol' });
    const handle = await world.start(edgeFlip, input, startSignedBy('carol'));
    await where(handle);
    const env = { ...process.env, MESH_TASK_QUEUE: world.taskQueue, NO_COLOR: '1' };
    const approve = (as: string, signer: string) =>
      promisify(execFile)(
        MESH,
        ['runbook', 'approve', input.node, 'approve-stop-predecessor', '--as', as, '--key', key(signer)],
        { env },
      ).then(
        ({ stdout }) => ({ code: 0, stdout, stderr: '' }),
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
    const self = await approve('carol', 'carol');
    assert.equal(self.code, 2, self.stderr);
    assert.match(
      self.stderr,
      /^error: carol started this runbook and may not also approve approve-stop-predecessor \(four eyes\)/,
    );
    const other = await approve('dave', 'dave');
    assert.equal(other.code, 0, other.stderr);
    assert.ok(
      other.stdout.includes(
        `recorded: approve at approve-stop-predecessor by dave (signed, key ${fingerprint('dave')})`,
      ),
      other.stdout,
    );
    const done = await statusWhen(handle, (s) => s.phase === 'completed');
    assert.deepEqual(done.decisions.at(-1)?.signer, { principal: 'dave', fingerprint: fingerprint('dave') });

    // history --verify re-verifies offline from the event history; a signer removed since no longer verifies.
    const signersFile = (...names: string[]) => {
      const path = join(dir, `signers-${names.join('-')}`);
      writeFileSync(path, names.map((n) => `${n} ${readFileSync(`${key(n)}.pub`, 'utf8')}`).join(''));
      return path;
    };
    const history = (file: string) =>
      promisify(execFile)(MESH, ['runbook', 'history', input.node, '--verify', file], { env }).then(
        ({ stdout }) => ({ code: 0, stdout }),
        (error: { code: number; stdout: string }) => error,
      );
    const kept = await history(signersFile('carol', 'dave'));
    assert.equal(kept.code, 0, kept.stdout);
    assert.match(
      kept.stdout,
      /^verified: approve at approve-stop-predecessor by dave \(signed, key SHA256:\S+\), .* — dave, key SHA256:/m,
    );
    assert.match(kept.stdout, /^1 signed decision of runbook-\S+ verify against /m);
    const removed = await history(signersFile('carol'));
    assert.equal(removed.code, 1, removed.stdout);
    assert.ok(
      removed.stdout.includes(`— key ${fingerprint('dave')} is not among these signers`),
      removed.stdout,
    );
    assert.match(removed.stdout, /^1 of 1 signed decisions of runbook-\S+ do not verify against /m);
  });
});
