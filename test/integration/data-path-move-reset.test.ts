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
import { closedFailing, decide, httpBody, statusWhen, waitingAt } from '../support/runbooks';
import { harnessTarget } from '../support/temporal';

/**
 * A Temporal Reset (`temporal workflow reset`, the Web UI's Reset button) takes a runbook back to an earlier
 * workflow task and runs it again from there. Reset to before the copy after the move switched, the copy ran
 * again and mirrored A over B: everything the service wrote on B since was overwritten or deleted. Now the
 * runbook looks before each copy and waits, and an abort there never removes B (it starts the containers and
 * restores the policy, which the reset run may have frozen again). Reset to the freeze, the reset run also
 * stopped the module again before it looked, and the module that served from B was down while it waited:
 * now it looks before the stop too, and the module keeps serving. A real reset on the dev server, the local
 * mesh over real Docker, real files.
 */

const WAIT_MS = 180_000;

/** The workflow task that scheduled the first activity of this type: a reset to it runs that step again. */
function taskScheduling(history: History, type: string): number {
  let lastTask: number | undefined;
  for (const event of history.events ?? []) {
    if (event.workflowTaskCompletedEventAttributes) lastTask = Number(event.eventId);
    if (event.activityTaskScheduledEventAttributes?.activityType?.name === type) return lastTask ?? 0;
  }
  assert.fail(`no workflow task scheduled ${type}`);
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
  it('copies nothing over B: it waits at check-target saying why, B keeps its new data, and abort never removes B', async () => {
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

    // Back to the freeze (the reset run freezes and stops again), to right after the stop (before the look
    // at B), and to the very task that scheduled the copy (after the look).
    const points = [
      taskScheduling(history, 'setUpgradePolicy'),
      taskAfterStop(history),
      taskScheduling(history, 'copyTree'),
    ];
    for (const task of points) {
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
      // The module that serves from B keeps serving while it waits (a reset to the freeze used to stop it).
      assert.equal(
        (await world.engine.inspect(forge.web))?.State.Running,
        true,
        `reset to event ${task}: the module runs while check-target waits`,
      );
      assert.equal(await httpBody(`http://127.0.0.1:${forge.port}`), 'changed on B after the switch\n');
      assert.match(
        looked.waiting?.reason ?? '',
        new RegExp(
          `^${TO} already holds ${forge.module}'s live data \\(the spec of ${forge.module} mounts ${TO}; ${forge.node}: a baseline of this move was recorded at [^ ]+ and ${TO} holds data\\): this runbook went back to before its copy \\(a Temporal Reset\\?\\), and copying ${FROM} over ${TO} would undo what was written there since, so it does not copy\\. ${forge.module} keeps running meanwhile \\(${forge.web}\\)\\. abort ends the runbook without touching ${TO}: it starts ${forge.module}'s containers as they are and puts its policy back to roll-out`,
        ),
      );

      assert.ok(
        looked.waiting?.facts.some(
          (f) => f.startsWith(`${forge.node}: container ${forge.web} (`) && f.endsWith(`mounts ${TO}`),
        ),
        `the facts say where the containers are: ${looked.waiting?.facts.join(' | ')}`,
      );
      await decide(reset, 'abort', 'check-target');
      const { status } = await closedFailing(reset);
      assert.equal(status.phase, 'aborted', status.outcome);
      const states = Object.fromEntries(status.steps.map((s) => [s.name, s.state]));
      assert.equal(states['remove-copy'], undefined, 'remove-copy dropped');
      assert.equal(states['restart-on-old-path'], 'compensated');
      assert.equal(states['unfreeze-policy'], 'compensated');
      assert.deepEqual(await onB(), [forge.hostTo], 'the module runs on B again, as before the reset');
      assert.equal((await world.engine.inspect(forge.web))?.State.Running, true);
      assert.equal((await world.mesh.moduleSpec(forge.module)).upgradePolicy, 'roll-out');
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
