import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import { before, describe, it } from 'node:test';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { History } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';
import type { RunbookStatus } from '../../workflows/contracts';
import { Lab } from '../support/lab';
import { labRunSince, labStatusWhen, seedForge } from '../support/lab-stories';

const NODE = 'forge1';
const FROM = '/srv/forge';
const TO = '/var/lib/forge';
const ID = `runbook-${NODE}`;

type ResetRequest = temporal.api.workflowservice.v1.IResetWorkflowExecutionRequest;

/**
 * A Temporal Reset of a data move to before its copy, once the move had switched and the forge wrote on B,
 * on the production-shaped lab (its own engine and disk per host, the outside controller). The reset run
 * waits at check-target and copies nothing over B; the forge must keep answering from B while it waits,
 * and after the abort there.
 */

/** The workflow task that scheduled the first activity of this type (a reset to it runs that task again). */
function taskScheduling(history: History, type: string): number {
  let lastTask: number | undefined;
  for (const event of history.events ?? []) {
    if (event.workflowTaskCompletedEventAttributes) lastTask = Number(event.eventId);
    if (event.activityTaskScheduledEventAttributes?.activityType?.name === type) return lastTask ?? 0;
  }
  assert.fail(`no workflow task scheduled ${type}`);
}

/** The activity types a run scheduled, in order. */
function scheduled(history: History): string[] {
  return (history.events ?? []).flatMap((e) => {
    const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
    return name ? [name] : [];
  });
}

/** What the forge answers for `path`, asked inside its container (the lab's hosts publish no ports). */
async function forgeAnswers(lab: Lab, path: string): Promise<string> {
  const engine = lab.engine(NODE);
  const [found] = await engine.listByLabels({ 'org.meshctl.module': 'forge' });
  if (!found) return 'no forge container';
  const container = engine.docker.getContainer(found.Id);
  if (!(await container.inspect()).State.Running) return 'the forge container is not running';
  const exec = await container.exec({
    // No -T: busybox's static wget crashes (SIGSEGV) with it.
    Cmd: ['wget', '-q', '-O', '-', `http://127.0.0.1:8080/${path}`],
    AttachStdout: true,
    AttachStderr: true,
  });
  const stream = await exec.start({ hijack: true, stdin: false });
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString()));
  engine.docker.modem.demuxStream(stream, out, out);
  await new Promise((resolve) => stream.on('end', resolve));
  return text;
}

async function resetTo(lab: Lab, client: Client, runId: string, task: number): Promise<WorkflowHandle> {
  const request = {
    namespace: lab.temporal.namespace,
    workflowExecution: { workflowId: ID, runId },
    workflowTaskFinishEventId: task,
    reason: 'lab test: back to before the copy',
    requestId: randomUUID(),
  } as unknown as ResetRequest;
  const reset = await client.workflowService.resetWorkflowExecution(request);
  return client.workflow.getHandle(ID, reset.runId ?? undefined);
}

describe('a data move reset to before its copy on the production-shaped lab', () => {
  let lab: Lab;
  before(async () => {
    lab = await Lab.story();
  });

  it('waits at check-target with the forge still answering from B, copies nothing over B, and abort leaves it serving', async () => {
    await seedForge(lab, NODE);
    const args = ['--node', NODE, '--module', 'forge', '--from', FROM, '--to', TO];
    const since = new Date();
    const started = await lab.cli('runbook', 'start', 'data-path-move', ...args, '--yes', '--detach');
    assert.equal(started.code, 0, started.stderr);
    const { client, connection } = await lab.client();
    try {
      const first = await labRunSince(client, ID, since);
      await labStatusWhen(first, (s) => s.waiting?.gate === 'gate-apply');
      assert.equal((await lab.cli('runbook', 'decide', NODE, 'recreate')).code, 0);
      await labStatusWhen(first, (s) => s.waiting?.gate === 'approve-remove-old-data');
      const onB = lab.onDisk(NODE, TO);
      await writeFile(`${onB}/new-on-b.txt`, 'written on B after the switch\n');
      assert.equal(await forgeAnswers(lab, 'new-on-b.txt'), 'written on B after the switch\n');
      const { runId } = await first.describe();
      const history = await first.fetchHistory();

      // Back to the freeze (the reset run freezes and would stop again), and to the task that scheduled the copy.
      for (const [where, task] of [
        ['the freeze', taskScheduling(history, 'setUpgradePolicy')],
        ['the copy', taskScheduling(history, 'copyTree')],
      ] as const) {
        const reset = await resetTo(lab, client, runId, task);
        const waiting: RunbookStatus = await labStatusWhen(
          reset,
          (s) => s.waiting?.gate === 'check-target' || !['running', 'waiting'].includes(s.phase),
        );
        assert.equal(waiting.waiting?.gate, 'check-target', `reset to ${where}: ${waiting.outcome ?? ''}`);
        assert.equal(
          await forgeAnswers(lab, 'new-on-b.txt'),
          'written on B after the switch\n',
          `reset to ${where}: the forge answers from B while it waits (${scheduled(await reset.fetchHistory()).join(', ')})`,
        );
        assert.equal(await readFile(`${onB}/new-on-b.txt`, 'utf8'), 'written on B after the switch\n');
        const abort = await lab.cli('runbook', 'decide', NODE, 'abort', '--as', 'carol');
        assert.equal(abort.code, 0, abort.stderr);
        const ended = await labStatusWhen(reset, (s) => !['running', 'waiting'].includes(s.phase));
        assert.equal(ended.phase, 'aborted', ended.outcome);
        assert.equal(
          await forgeAnswers(lab, 'new-on-b.txt'),
          'written on B after the switch\n',
          `reset to ${where}: the forge answers from B after the abort`,
        );
        assert.ok(!scheduled(await reset.fetchHistory()).includes('removeTree'), 'nothing removed');
      }
    } finally {
      await connection.close();
    }
  });
});
