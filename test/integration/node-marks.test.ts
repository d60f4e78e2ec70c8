import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { it } from 'node:test';
import { setTimeout } from 'node:timers/promises';
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { RunbookRow } from '../../cli/runbook/list/list';
import { hostPathOnNode } from '../../docker/placement';
import { MeshRefusedError } from '../../mesh/errors';
import { LocalMesh } from '../../mesh/local';
import { waitForApplyReport } from '../../mesh/wait-for-apply';
import { dataPathMove, edgeFlip } from '../../workflows';
import { FAILURE, type EdgeFlipInputArg } from '../../workflows/contracts';
import { nodeMarkId, runbookEndedSignal } from '../../workflows/node-mark-contracts';
import { FROM, TO } from '../support/data-move';
import { edgeFlipArgs, seedEdgeFlip } from '../support/edge-flip-seed';
import { meshRunbook, type CliOutcome } from '../support/mesh-cli';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { closedFailing, decide, FAST_TIMINGS, statusWhen, waitingAt } from '../support/runbooks';
import { harnessTarget } from '../support/temporal';
import { describe } from '../support/side-by-side';

/** A mesh that will not take modules off nodes while told so: the successor's undo cannot complete. */
class UnassignRefusingMesh extends LocalMesh {
  readonly refusing = new Set<string>();

  override async unassign(module: string, node: string): Promise<void> {
    if (this.refusing.has(module))
      throw new MeshRefusedError(`mesh will not unassign ${module} from ${node}`);
    return super.unassign(module, node);
  }
}

const clearIt = (node: string) =>
  `look at ${node}, then clear it: mesh runbook clear ${node} --reason "<what you found and did>".`;

/** The CLI's refusal: exit 2, `error: <the sentence>` and a suggestion, nothing on stdout. */
function assertRefused(outcome: CliOutcome, sentence: string): void {
  assert.equal(outcome.code, 2, `exit 2 expected; stdout: ${outcome.stdout} stderr: ${outcome.stderr}`);
  assert.equal(outcome.stdout, '');
  const lines = outcome.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 2, `one sentence and one suggestion: ${outcome.stderr}`);
  assert.equal(lines[0], `error: ${sentence}`);
}

/** The workflow's own guard, reached without the CLI: a runbook started on the node fails NodeNeedsClearing. */
async function refusedByTheRunbook(
  start: () => Promise<{ result(): Promise<unknown> }>,
  sentence: string,
): Promise<void> {
  const handle = await start();
  const ended = await Promise.race([
    handle.result().then(
      () => 'completed',
      (e: unknown) => e,
    ),
    setTimeout(120_000, 'still running'),
  ]);
  assert.ok(
    ended instanceof WorkflowFailedError && ended.cause instanceof ApplicationFailure,
    `a runbook on a node that needs clearing: ${String(ended)}`,
  );
  assert.equal(ended.cause.type, FAILURE.nodeNeedsClearing, ended.cause.message);
  assert.equal(ended.cause.message, sentence);
}

async function needsClearingRows(world: RunbookWorld, node?: string): Promise<RunbookRow[]> {
  const listed = await meshRunbook(world, 'list', ...(node ? ['--node', node] : []), '--json');
  assert.equal(listed.code, 0, listed.stderr);
  return (JSON.parse(listed.stdout) as RunbookRow[]).filter((row) => row.phase === 'needs-clearing');
}

async function assertStatusSays(world: RunbookWorld, node: string, sentence: string): Promise<void> {
  const [status, json] = await Promise.all([
    meshRunbook(world, 'status', node),
    meshRunbook(world, 'status', node, '--json'),
  ]);
  assert.equal(status.code, 5, status.stderr);
  assert.ok(status.stdout.trimEnd().endsWith(`needs clearing: ${sentence}`), status.stdout);
  assert.equal((JSON.parse(json.stdout) as { needsClearing?: string }).needsClearing, sentence);
}

async function clearAs(world: RunbookWorld, node: string, reason: string): Promise<string[]> {
  const cleared = await meshRunbook(world, 'clear', node, '--reason', reason, '--as', 'dave');
  assert.equal(cleared.code, 0, cleared.stderr);
  const lines = cleared.stdout.trimEnd().split('\n');
  assert.match(lines[0] ?? '', new RegExp(`^cleared ${node}: by dave \\(--as\\) at \\S+Z: ${reason}$`));
  return lines;
}

/** A flip held at gate-apply: the successor is assigned and pushed, the node has changed. */
async function flipThatChangedItsNode(world: RunbookWorld) {
  const input = await seedEdgeFlip(world, { leftovers: true });
  const handle = await world.start(edgeFlip, input);
  await statusWhen(handle, waitingAt('gate-apply'));
  return { input, handle, node: input.node, runId: handle.firstExecutionRunId };
}

describe('a node a runbook left mid-change needs clearing, durably and per node (CLI, real Temporal and Docker)', () => {
  it('a runbook terminated mid-flip (a Web UI button) leaves its node needing clearing until mesh runbook clear', async () => {
    await using world = await runbookWorld();
    const { input, handle, node, runId } = await flipThatChangedItsNode(world);
    await handle.terminate('a Web UI button');
    // Buttons on the mark itself: its run's "I ended" signal sent by someone else, and a cancel request.
    const mark = world.client.workflow.getHandle(nodeMarkId(node));
    await mark.signal(runbookEndedSignal, { workflowId: handle.workflowId, runId });
    await mark.cancel();

    const sentence = `The last runbook on ${node} (edgeFlip, run ${runId}) was terminated while it changed ${node} (a Web UI button); ${clearIt(node)}`;
    assertRefused(await meshRunbook(world, 'start', ...edgeFlipArgs(input), '--detach'), sentence);
    await refusedByTheRunbook(() => world.start(edgeFlip, input), sentence);
    await assertStatusSays(world, node, sentence);
    const [row] = await needsClearingRows(world, node);
    assert.deepEqual(
      [row?.id, row?.kind, row?.node, row?.where],
      [nodeMarkId(node), 'node-mark', node, sentence],
    );

    const reason = 'route-proxy unassigned by hand; caddy serves';
    const lines = await clearAs(world, node, reason);
    assert.equal(
      lines[1],
      `the last runbook on ${node} (edgeFlip, run ${runId}) was terminated while it changed ${node} (a Web UI button); runbooks may start on ${node} again`,
    );
    const history = await meshRunbook(world, 'history', node);
    assert.match(
      history.stdout,
      new RegExp(`^runbook-${node}  clearance of ${node} by dave, cleared at \\S+Z\\n  reason: ${reason}\\n`),
    );
    assert.deepEqual(await needsClearingRows(world, node), []);

    const next = await world.start(edgeFlip, input);
    await statusWhen(next, waitingAt('gate-apply'));
  });

  it('a later run that fails for another reason does not wash out the mark of a failed rollback', async () => {
    await using world = await runbookWorld({ mesh: (stateDir) => new UnassignRefusingMesh({ stateDir }) });
    const input = await seedEdgeFlip(world);
    const { node } = input;
    world.mesh.refusing.add(input.module);
    const first = await world.start(edgeFlip, input);
    await statusWhen(first, waitingAt('approve-stop-predecessor'));
    await decide(first, 'abort');
    await statusWhen(first, waitingAt('unassign-successor'));
    await decide(first, 'give-up');
    const { cause } = await closedFailing(first);
    assert.ok(cause instanceof ApplicationFailure && cause.type === FAILURE.rollbackFailed, String(cause));

    // Started past the CLI (the Web UI, a script) with input it refuses: it fails, and is the node's last run.
    const invalid = { ...input, publicNames: [] } as unknown as EdgeFlipInputArg;
    const later = await world.start(edgeFlip, invalid);
    const { cause: laterCause } = await later.result().then(
      () => assert.fail('it completed'),
      (e: unknown) => e as WorkflowFailedError,
    );
    assert.equal((laterCause as ApplicationFailure).type, FAILURE.invalidInput);

    const sentence = `The last runbook on ${node} (edgeFlip, run ${first.firstExecutionRunId}) ended with its rollback failed (${cause.message}); ${clearIt(node)}`;
    assertRefused(await meshRunbook(world, 'start', ...edgeFlipArgs(input), '--detach'), sentence);
    await refusedByTheRunbook(() => world.start(edgeFlip, input), sentence);
    await assertStatusSays(world, node, sentence);
  });

  it('every node of a --nodes data-path move is marked, and each is cleared on its own', async () => {
    await using world = await runbookWorld();
    const { module, nodes } = await seedOnTwoNodes(world);
    const [first, second] = nodes as [string, string];
    const move = await world.start(dataPathMove, {
      node: first,
      nodes: [first, second],
      module,
      from: FROM,
      to: TO,
      startedBy: 'alice',
      timings: FAST_TIMINGS,
    });
    // Both nodes' containers stopped, their data copied, the spec switched: then a Web UI button.
    await statusWhen(move, waitingAt('gate-apply'), 60_000);
    await move.terminate('a Web UI button');

    const runId = move.firstExecutionRunId;
    const sentences = {
      [first]: `The last runbook on ${first} (dataPathMove, run ${runId}) was terminated while it changed ${first} (a Web UI button); ${clearIt(first)}`,
      [second]: `The last runbook on ${second} (dataPathMove runbook-${first}, run ${runId}) was terminated while it changed ${second} (a Web UI button); ${clearIt(second)}`,
    };
    const moveArgs = (node: string) => [
      'data-path-move',
      '--node',
      node,
      '--module',
      module,
      '--from',
      FROM,
      '--to',
      TO,
    ];
    assertRefused(
      await meshRunbook(world, 'start', ...moveArgs(second), '--detach'),
      sentences[second] as string,
    );
    await refusedByTheRunbook(
      () =>
        world.start(dataPathMove, {
          node: second,
          module,
          from: FROM,
          to: TO,
          startedBy: 'bob',
          timings: FAST_TIMINGS,
        }),
      sentences[second] as string,
    );
    await assertStatusSays(world, second, sentences[second] as string);
    const rows = await needsClearingRows(world);
    assert.deepEqual(
      rows.map((row) => [row.node, row.where]).sort(),
      nodes.map((node) => [node, sentences[node]]).sort(),
    );

    await clearAs(world, second, `${module} on ${second} put back on ${FROM} by hand`);
    assert.deepEqual(
      (await needsClearingRows(world)).map((row) => row.node),
      [first],
      'clearing one node leaves the other marked',
    );
    assertRefused(
      await meshRunbook(world, 'start', ...moveArgs(first), '--detach'),
      sentences[first] as string,
    );
    await clearAs(world, first, `${module} on ${first} put back on ${FROM} by hand`);
    assert.deepEqual(await needsClearingRows(world), []);
  });

  it('the mark outlives the runbook’s own history (deleted, as retention does)', async () => {
    await using world = await runbookWorld();
    const { input, handle, node, runId } = await flipThatChangedItsNode(world);
    await handle.terminate('a Web UI button');
    await world.client.workflowService.deleteWorkflowExecution({
      namespace: harnessTarget().namespace,
      workflowExecution: { workflowId: handle.workflowId, runId },
    });
    await gone(world, handle.workflowId, runId);

    const left = `The last runbook on ${node} (edgeFlip, run ${runId}) changed ${node} and did not end cleanly; its history is gone now (past the namespace retention)`;
    const sentence = `${left}; ${clearIt(node)}`;
    assertRefused(await meshRunbook(world, 'start', ...edgeFlipArgs(input), '--detach'), sentence);
    const status = await meshRunbook(world, 'status', node);
    assert.equal(status.code, 5, status.stderr);
    assert.equal(status.stdout, `runbook-${node}: ${node} needs clearing: ${sentence}\n`);

    const lines = await clearAs(world, node, 'successor unassigned by hand; caddy serves');
    assert.equal(lines[1], `${left.replace(/^The/, 'the')}; runbooks may start on ${node} again`);
    const next = await world.start(edgeFlip, input);
    await statusWhen(next, waitingAt('gate-apply'));
  });
});

/**
 * Waits until Temporal no longer knows the run: a deletion is a background task of the history service, and
 * on a loaded machine it was seen to take over 30 s.
 */
async function gone(world: RunbookWorld, workflowId: string, runId: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      await world.client.workflow.getHandle(workflowId, runId).describe();
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return;
      throw error;
    }
    if (Date.now() >= deadline) assert.fail(`${workflowId} run ${runId} is still there`);
    await setTimeout(200);
  }
}

/** A module of one long-running container mounting A, assigned to two nodes, each with data of its own. */
async function seedOnTwoNodes(world: RunbookWorld) {
  const module = `store-${randomBytes(3).toString('hex')}`;
  const image = world.imageName('store');
  const nodes = [world.nodeName(), world.nodeName()];
  await world.mesh.defineModule({
    module,
    upgradePolicy: 'roll-out',
    dataDirs: [FROM],
    containers: [
      {
        name: 'web',
        image,
        command: ['sh', '-c', "trap 'exit 0' TERM; while true; do sleep 1; done"],
        mounts: [{ hostPath: FROM, containerPath: '/data' }],
      },
    ],
  });
  for (const node of nodes) {
    const { hostRoot } = await world.mesh.createNode(node, { adopted: false });
    await mkdir(hostPathOnNode(hostRoot, FROM), { recursive: true });
    await writeFile(join(hostPathOnNode(hostRoot, FROM), 'owner.txt'), `the data of ${node}\n`);
    await world.mesh.assign(module, node);
    const receipt = await world.mesh.push(node);
    await waitForApplyReport(world.mesh, node, receipt.pushId, { timeoutMs: 120_000 });
  }
  return { module, nodes };
}
