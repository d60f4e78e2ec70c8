import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import type { WorkflowHandle } from '@temporalio/client';
import { readNodeMark, type NodeMarkReading } from '../../activities/runbook/node-marks';
import { markSourceOf } from '../../activities/runbook/node-marks-sdk';
import type { RunbookRow } from '../../cli/runbook/list/list';
import { edgeFlip } from '../../workflows';
import { FAILURE } from '../../workflows/contracts';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { meshRunbook } from '../support/mesh-cli';
import { markOnceSettled, resetRun, taskPoints, type TaskPoint } from '../support/reset';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { closedFailing, decide, statusWhen, waitingAt } from '../support/runbooks';

/** A flip held at gate-apply (its node marked, the successor assigned), and its history's workflow tasks. */
async function flipAtGateApply(world: RunbookWorld) {
  const input = await seedEdgeFlip(world, { leftovers: true });
  const base = await world.start(edgeFlip, input);
  await statusWhen(base, waitingAt('gate-apply'));
  const points = taskPoints(await base.fetchHistory());
  const beforeMarks = points.find((p) => p.before === 'nodesNeedingClearing');
  assert.ok(beforeMarks, `no workflow task checks the marks: ${JSON.stringify(points)}`);
  return { node: input.node, base, beforeMarks, last: points.at(-1) as TaskPoint };
}

async function markOf(world: RunbookWorld, node: string): Promise<NodeMarkReading> {
  return readNodeMark(markSourceOf(world.client), node);
}

/** `mesh runbook list`'s rows of nodes needing clearing, read without the client SDK. */
async function needsClearingRows(world: RunbookWorld, node: string): Promise<string[]> {
  const listed = await meshRunbook(world, 'list', '--node', node, '--json');
  assert.equal(listed.code, 0, listed.stderr);
  const rows = JSON.parse(listed.stdout) as RunbookRow[];
  return rows.filter((row) => row.phase === 'needs-clearing').map((row) => row.where ?? '');
}

/** The reset run waits at a gate; its mark is its base's, carried on; its abort ends it cleanly, mark gone. */
async function carriesTheMarkAndLetsItGo(
  world: RunbookWorld,
  node: string,
  baseRunId: string,
  { run: reset, runId }: { run: WorkflowHandle; runId: string },
): Promise<void> {
  const waiting = await statusWhen(reset, (s) => s.phase !== 'running' || !!s.waiting, 120_000);
  assert.ok(waiting.waiting, `the reset run ${waiting.phase}: ${waiting.outcome ?? ''}`);
  const held = await markOf(world, node);
  assert.equal(held.kind, 'in-flight', JSON.stringify(held));
  assert.deepEqual(held.kind === 'in-flight' && [held.mark.by.runId, held.resetTo], [baseRunId, runId]);
  assert.deepEqual(await needsClearingRows(world, node), [], '`list` reads the reset run as its base');
  await decide(reset, 'abort', waiting.waiting.gate);
  const { cause, status } = await closedFailing(reset);
  assert.equal(status.phase, 'aborted', String(cause));
  assert.equal((await markOnceSettled(world.client, node, 180_000)).kind, 'none');
}

describe('a Temporal Reset carries a runbook on, node marks included (real Temporal and Docker)', () => {
  it('reset to before its marks: the reset run finds its base’s mark its own, waits, and its clean abort lets the mark go', async () => {
    await using world = await runbookWorld();
    const { node, base, beforeMarks } = await flipAtGateApply(world);
    const reset = await resetRun(
      world.client,
      base.workflowId,
      base.firstExecutionRunId,
      beforeMarks.task,
      'a Web UI reset',
    );
    await carriesTheMarkAndLetsItGo(world, node, base.firstExecutionRunId, reset);
  });

  it('reset past its marks: the reset run replays the mark, and its clean abort lets it go', async () => {
    await using world = await runbookWorld();
    const { node, base, last } = await flipAtGateApply(world);
    const reset = await resetRun(
      world.client,
      base.workflowId,
      base.firstExecutionRunId,
      last.task,
      'a reset',
    );
    await carriesTheMarkAndLetsItGo(world, node, base.firstExecutionRunId, reset);
  });

  it('a run a person terminated stays terminated: a later reset of it is refused until the node is cleared', async () => {
    await using world = await runbookWorld();
    const { node, base, beforeMarks } = await flipAtGateApply(world);
    await base.terminate('a Web UI button');
    const { run: reset } = await resetRun(
      world.client,
      base.workflowId,
      base.firstExecutionRunId,
      beforeMarks.task,
      'a reset after the termination',
    );
    const { cause } = await closedFailing(reset);
    assert.ok(cause instanceof ApplicationFailure, String(cause));
    assert.equal(cause.type, FAILURE.nodeNeedsClearing);
    assert.match(
      cause.message,
      new RegExp(
        `^The last runbook on ${node} \\(edgeFlip, run ${base.firstExecutionRunId}\\) was terminated while it changed ${node} \\(a Web UI button\\); look at ${node}, then clear it`,
      ),
    );
    assert.deepEqual(await needsClearingRows(world, node), [cause.message]);
  });
});
