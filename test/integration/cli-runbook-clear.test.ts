import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout } from 'node:timers/promises';
import { promisify } from 'node:util';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { ClearanceHistory } from '../../cli/runbook/history/clearance';
import type { RunbookRow } from '../../cli/runbook/list/list';
import { MeshRefusedError } from '../../mesh/errors';
import { LocalMesh } from '../../mesh/local';
import { waitForApplyReport } from '../../mesh/wait-for-apply';
import { edgeFlip } from '../../workflows';
import { FAILURE, RunbookStatus, type EdgeFlipInputArg } from '../../workflows/contracts';
import { edgeFlipArgs, seedEdgeFlip } from '../support/edge-flip-seed';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { closedFailing, statusWhen, stepState, waitingAt } from '../support/runbooks';

const MESH = join(__dirname, '..', '..', 'bin', 'mesh.js');
const run = promisify(execFile);

/** A mesh that will not take modules off nodes while told so: the successor's undo cannot complete. */
class UnassignRefusingMesh extends LocalMesh {
  readonly refusing = new Set<string>();

  override async unassign(module: string, node: string): Promise<void> {
    if (this.refusing.has(module))
      throw new MeshRefusedError(`mesh will not unassign ${module} from ${node}`);
    return super.unassign(module, node);
  }
}

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

// eslint-disable-next-line no-control-regex
const plain = (text: string) => text.replace(/\u001b\[\d+m/g, '');

/** `mesh runbook ...` as a subprocess on the world's task queue and mesh (start plans on it). */
function cliOf(world: RunbookWorld) {
  const env = {
    ...process.env,
    MESH_TASK_QUEUE: world.taskQueue,
    MESH_ADAPTER: 'local',
    MESH_LOCAL_STATE: world.stateDir,
  };
  return async (...args: string[]): Promise<Outcome> => {
    try {
      const { stdout, stderr } = await run(MESH, ['runbook', ...args], { env });
      return { code: 0, stdout: plain(stdout), stderr: plain(stderr) };
    } catch (error) {
      const failed = error as Outcome;
      return { code: failed.code, stdout: plain(failed.stdout), stderr: plain(failed.stderr) };
    }
  };
}

/** The CLI's refusal: exit 2, `error: <one sentence>` and a suggestion, nothing on stdout. */
function assertRefused(outcome: Outcome, sentence: RegExp): void {
  assert.equal(outcome.code, 2, `exit 2 expected; stderr: ${outcome.stderr}`);
  assert.equal(outcome.stdout, '');
  const lines = outcome.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 2, `one sentence and one suggestion: ${outcome.stderr}`);
  assert.match(lines[0] ?? '', sentence);
}

const startArgs = (input: EdgeFlipInputArg) => ['start', ...edgeFlipArgs(input)];

/** The workflow's own guard, reached without the CLI: a runbook started on the node fails NodeNeedsClearing. */
async function refusedByTheRunbook(world: RunbookWorld, input: EdgeFlipInputArg): Promise<void> {
  const handle = await world.start(edgeFlip, input);
  const deadline = new AbortController();
  const stillRunning = setTimeout(120_000, 'still running', { signal: deadline.signal }).catch(
    () => 'aborted',
  );
  const ended = await Promise.race([
    handle.result().then(
      () => 'completed',
      (e: unknown) => e,
    ),
    stillRunning,
  ]);
  deadline.abort();
  assert.ok(
    ended instanceof WorkflowFailedError && ended.cause instanceof ApplicationFailure,
    `a runbook on a node that needs clearing: ${String(ended)}`,
  );
  assert.equal(ended.cause.type, FAILURE.nodeNeedsClearing, ended.cause.message);
}

describe('a node whose runbook could not roll back takes no runbook until an operator clears it (CLI, real Temporal and Docker)', () => {
  it('refuses start after a failed rollback, clears with a reason on record, then starts again', async () => {
    await using world = await runbookWorld({ mesh: (stateDir) => new UnassignRefusingMesh({ stateDir }) });
    const mesh = cliOf(world);
    const input = await seedEdgeFlip(world);
    const { node } = input;

    // The rollback fails for real: aborted at the approval, mesh refuses to take the successor off.
    world.mesh.refusing.add(input.module);
    const first = await world.start(edgeFlip, input);
    await statusWhen(first, waitingAt('approve-stop-predecessor'));
    assert.equal((await mesh('decide', node, 'abort', '--as', 'carol')).code, 0);
    const stuck = await statusWhen(first, waitingAt('unassign-successor'));
    assert.deepEqual(stuck.waiting?.actions, ['retry', 'give-up']);
    const gaveUp = await mesh('decide', node, 'give-up', '--as', 'carol');
    assert.equal(gaveUp.code, 0, gaveUp.stderr);
    const { cause, status } = await closedFailing(first);
    assert.ok(cause instanceof ApplicationFailure && cause.type === FAILURE.rollbackFailed, String(cause));
    assert.equal(stepState(status, 'unassign-successor'), 'failed');

    const refused = new RegExp(
      `^error: The last runbook on ${node} \\(edgeFlip, run ${first.firstExecutionRunId}\\) ended with its rollback failed \\(.*mesh will not unassign route-proxy.*\\); look at ${node}, then clear it: mesh runbook clear ${node} --reason "<what you found and did>"\\.$`,
    );
    assertRefused(await mesh(...startArgs(input), '--detach'), refused);
    // Started past the CLI, the runbook refuses itself, and a second attempt does not slip through.
    await refusedByTheRunbook(world, input);
    await refusedByTheRunbook(world, input);
    assertRefused(await mesh(...startArgs(input), '--detach'), refused);

    // The operator looks at the node and puts it right by hand, then says so.
    world.mesh.refusing.delete(input.module);
    await world.mesh.unassign(input.module, node);
    const push = await world.mesh.push(node);
    await waitForApplyReport(world.mesh, node, push.pushId, { timeoutMs: 20_000 });

    const noReason = await mesh('clear', node);
    assert.equal(noReason.code, 2, noReason.stderr);
    assert.match(noReason.stderr, /^error: required option '--reason <text>' not specified/);
    assertRefused(
      await mesh('clear', node, '--reason', 'ok'),
      /^error: --reason is invalid: say what you found and did\.$/,
    );

    const reason = 'route-proxy unassigned and pushed by hand; caddy serves';
    const cleared = await mesh('clear', node, '--reason', reason, '--as', 'dave', '--json');
    assert.equal(cleared.code, 0, cleared.stderr);
    const record = JSON.parse(cleared.stdout) as Record<string, string>;
    assert.deepEqual(
      [record.id, record.node, record.by, record.identity, record.reason],
      [`runbook-${node}`, node, 'dave', 'as-flag', reason],
    );
    assertRefused(
      await mesh('clear', node, '--reason', reason),
      new RegExp(`^error: There is nothing to clear on ${node}: dave cleared it at \\S+Z \\("${reason}"\\)`),
    );

    // list and history show the clearance as such.
    const listed = await mesh('list', '--node', node, '--json');
    assert.equal(listed.code, 0, listed.stderr);
    const [newest] = JSON.parse(listed.stdout) as RunbookRow[];
    assert.deepEqual(
      [newest?.kind, newest?.type, newest?.phase, newest?.where],
      ['clearance', 'clearNode', 'completed', `cleared by dave: ${reason}`],
    );
    const [history, historyJson] = await Promise.all([
      mesh('history', node),
      mesh('history', node, '--json'),
    ]);
    assert.match(
      history.stdout,
      new RegExp(`^runbook-${node}  clearance of ${node} by dave, cleared at \\S+Z\\n  reason: ${reason}\\n`),
    );
    const recorded = JSON.parse(historyJson.stdout) as ClearanceHistory;
    assert.deepEqual([recorded.kind, recorded.by, recorded.reason], ['clearance', 'dave', reason]);

    // The next runbook starts and runs up to its approval.
    const next = await mesh(...startArgs(input));
    assert.equal(next.code, 3, `waiting for a decision: ${next.stderr}`);
    assert.match(next.stdout, /waiting at approve-stop-predecessor/);
    const again = RunbookStatus.parse(JSON.parse((await mesh('status', node, '--json')).stdout));
    assert.equal(again.waiting?.gate, 'approve-stop-predecessor');
  });
});
