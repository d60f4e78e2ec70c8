import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import type { History } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';
import { dataPathMove } from '../../workflows';
import { runbookWorkflowId, type RunbookStatus } from '../../workflows/contracts';
import {
  activityResults,
  exists,
  FROM,
  moveInput,
  scheduledActivities,
  seedForge,
  TO,
} from '../support/data-move';
import { runbookWorld } from '../support/runbook-world';
import { closedFailing, decide, statusWhen, waitingAt } from '../support/runbooks';
import { harnessTarget } from '../support/temporal';

/**
 * A Temporal Reset (`temporal workflow reset`, the Web UI's Reset button) takes a runbook back to an earlier
 * workflow task and runs it again from there. Reset to before the copy after the move switched, the copy ran
 * again and mirrored A over B: everything the service wrote on B since was overwritten or deleted. Now the
 * runbook looks before each copy and waits, and an abort there undoes nothing. A real reset on the dev
 * server, the local mesh over real Docker, real files.
 */

const WAIT_MS = 60_000;

/** The workflow task that scheduled the first copy: a reset to it runs the copy again. */
function taskSchedulingCopy(history: History): number {
  let lastTask: number | undefined;
  for (const event of history.events ?? []) {
    if (event.workflowTaskCompletedEventAttributes) lastTask = Number(event.eventId);
    if (event.activityTaskScheduledEventAttributes?.activityType?.name === 'copyTree') break;
  }
  assert.ok(lastTask, 'a workflow task scheduled the copy');
  return lastTask;
}

/** The workflow task right after the containers stopped: a reset to it runs everything from there again. */
function taskAfterStop(history: History): number {
  const events = history.events ?? [];
  const stopped = events.findIndex((e) => {
    const completed = e.activityTaskCompletedEventAttributes;
    if (!completed) return false;
    const scheduled = events.find((s) => String(s.eventId) === String(completed.scheduledEventId));
    return scheduled?.activityTaskScheduledEventAttributes?.activityType?.name === 'stopContainers';
  });
  const task = events.slice(stopped).find((e) => e.workflowTaskCompletedEventAttributes);
  assert.ok(stopped >= 0 && task, 'a workflow task after the stop');
  return Number(task.eventId);
}

type ResetRequest = temporal.api.workflowservice.v1.IResetWorkflowExecutionRequest;

describe('a data-path move reset to before its copy after the switch (a real Temporal Reset)', () => {
  it('copies nothing over B: it waits at check-target saying why, B keeps its new data, and abort undoes nothing', async () => {
    await using world = await runbookWorld();
    const forge = await seedForge(world);
    const first = await world.start(dataPathMove, moveInput(forge));
    await statusWhen(first, waitingAt('gate-apply'), WAIT_MS);
    await decide(first, 'recreate', 'gate-apply');
    await statusWhen(first, waitingAt('approve-remove-old-data'), WAIT_MS);
    const onB = async () => (await world.engine.inspect(forge.web))?.Mounts.map((m) => m.Source);
    assert.deepEqual(await onB(), [forge.hostTo], 'the module runs on B');
    // What the service writes on B once it runs there.
    await writeFile(join(forge.hostTo, 'new-on-b.txt'), 'written on B after the switch\n');
    await writeFile(join(forge.hostTo, 'index.html'), 'changed on B after the switch\n');

    const firstRun = first.firstExecutionRunId;
    const history = await first.fetchHistory();
    const target = harnessTarget();
    /** `temporal workflow reset --event-id <task>` of the first run: the new run's handle. */
    const resetTo = async (task: number): Promise<WorkflowHandle> => {
      const request = {
        namespace: target.namespace,
        workflowExecution: { workflowId: runbookWorkflowId(forge.node), runId: firstRun },
        workflowTaskFinishEventId: task,
        reason: 'test: back to before the copy',
        requestId: randomUUID(),
      } as unknown as ResetRequest;
      const { runId } = await world.client.workflowService.resetWorkflowExecution(request);
      return world.client.workflow.getHandle(runbookWorkflowId(forge.node), runId ?? undefined);
    };

    // Back to right after the stop (before the look at B), then back to the very task that scheduled the copy.
    for (const task of [taskAfterStop(history), taskSchedulingCopy(history)]) {
      const reset = await resetTo(task);
      const looked: RunbookStatus = await statusWhen(
        reset,
        (s) => waitingAt('check-target')(s) || s.steps.find((step) => step.name === 'copy')?.state === 'done',
        WAIT_MS,
      );
      assert.equal(
        await readFile(join(forge.hostTo, 'index.html'), 'utf8'),
        'changed on B after the switch\n',
        `B's write survived the reset to event ${task}`,
      );
      assert.equal(
        await readFile(join(forge.hostTo, 'new-on-b.txt'), 'utf8'),
        'written on B after the switch\n',
      );
      assert.equal(looked.waiting?.gate, 'check-target', JSON.stringify(looked.waiting ?? looked.steps));
      assert.deepEqual(looked.waiting?.actions, ['recheck', 'abort']);
      assert.match(
        looked.waiting?.reason ?? '',
        new RegExp(
          `^${TO} already holds ${forge.module}'s live data \\(the spec of ${forge.module} mounts ${TO}; ${forge.node}: a baseline of this move was recorded at [^ ]+ and ${TO} holds data\\): this runbook went back to before its copy \\(a Temporal Reset\\?\\), and copying ${FROM} over ${TO} would undo what was written there since, so it does not copy\\. abort ends the runbook and undoes nothing`,
        ),
      );

      await decide(reset, 'abort', 'check-target');
      const { status } = await closedFailing(reset);
      assert.equal(status.phase, 'aborted', status.outcome);
      const states = Object.fromEntries(status.steps.map((s) => [s.name, s.state]));
      for (const undo of ['remove-copy', 'restart-on-old-path', 'unfreeze-policy'])
        assert.equal(states[undo], undefined, `${undo} did not run`);
      const scheduled = scheduledActivities(await reset.fetchHistory());
      assert.equal(scheduled.removeTree, undefined, 'nothing removed');
      assert.deepEqual(activityResults(await reset.fetchHistory(), 'copyTree'), [], 'no copy ran to its end');
    }
    // A few seconds later B is as the service left it, and the module still runs there.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    assert.equal(
      await readFile(join(forge.hostTo, 'new-on-b.txt'), 'utf8'),
      'written on B after the switch\n',
    );
    assert.equal(await exists(forge.hostFrom), true, 'A kept');
    assert.deepEqual(await onB(), [forge.hostTo]);
    assert.equal((await world.engine.inspect(forge.web))?.State.Running, true);
  });
});
