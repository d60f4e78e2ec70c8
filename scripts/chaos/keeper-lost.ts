import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WorkflowHandle } from '@temporalio/client';
import { FAST_TIMINGS, statusWhen, stepState } from '../../test/support/runbooks';
import { runbookWorld } from '../../test/support/runbook-world';
import { dataPathMove } from '../../workflows';
import { statusQuery } from '../../workflows/contracts';
import { lockKeeperId } from '../../workflows/lock';
import { failedRun, type ExperimentResult, type RunResult } from './result';

/** When the keeper is terminated: the holder holds and two wait; as the holder ends; twice in a row. */
const MOMENTS = ['while one holds and two wait', 'as the holder ends', 'twice, a re-ask apart'] as const;
type Moment = (typeof MOMENTS)[number];

const ASK_AGAIN_MS = 1_000;
/** A waiter that does not hold this long after the one before it ended is lost. */
const HANDOVER_MS = 60_000;

/**
 * Experiment: the lock keeper (`runbook-locks@<queue>`) terminated, as a Web UI button or a lost keeper does,
 * while three data-path moves of one module take turns: none may ever hold together (a grant in one's history
 * before the other's release counts as duplicated), one of the waiters must hold within a minute of the
 * holder's end (else they are lost), and the keeper must end once all have. Recovery: the holder's end to the next runbook
 * holding.
 */
export async function keeperLost(quick: boolean, log: (line: string) => void): Promise<ExperimentResult> {
  const started = Date.now();
  const runs: RunResult[] = [];
  for (const moment of quick ? MOMENTS.slice(0, 1) : MOMENTS) {
    const run = await oneRun(moment).catch((error: unknown) =>
      failedRun(`keeper terminated ${moment}`, error instanceof Error ? error.message : String(error)),
    );
    log(
      `  keeper terminated ${moment}: ${run.passed ? 'held' : 'FAILED'}${run.notes.length ? ` (${run.notes.join('; ')})` : ''}`,
    );
    runs.push(run);
  }
  return { experiment: 'keeper-lost', runs, seconds: (Date.now() - started) / 1000 };
}

async function oneRun(moment: Moment): Promise<RunResult> {
  await using world = await runbookWorld();
  const module = `lk-${randomBytes(3).toString('hex')}`;
  const keeper = world.client.workflow.getHandle(lockKeeperId(world.taskQueue));
  const start = () =>
    world.start(dataPathMove, {
      ...moveOn(world.nodeName()),
      module,
    });
  const turns = [await start()];
  await statusWhen(turns[0] as WorkflowHandle, (s) => stepState(s, 'locks') === 'done');
  turns.push(await start(), await start());
  for (const waiter of turns.slice(1))
    await statusWhen(waiter, (s) =>
      s.steps.some((step) => step.name === 'locks' && step.note?.startsWith('waits')),
    );

  const notes: string[] = [];
  let lost = 0;
  let slowest = 0;
  if (moment !== 'as the holder ends') await keeper.terminate(`chaos: the keeper is lost ${moment}`);
  if (moment === 'twice, a re-ask apart') {
    await sleep(2 * ASK_AGAIN_MS);
    await keeper.terminate('chaos: the keeper is lost again');
  }
  // Waiters are served oldest first by their own clocks: after a lost keeper, the next may be either.
  let holder = turns[0] as WorkflowHandle;
  const waiting: WorkflowHandle[] = turns.slice(1);
  for (let first = true; ; first = false) {
    await holder.cancel();
    if (moment === 'as the holder ends' && first)
      await keeper.terminate('chaos: the keeper is lost as it grants').catch(() => undefined);
    await holder.result().catch(() => undefined);
    const ended = Date.now();
    if (waiting.length === 0) break;
    const next = await firstToHold(waiting, HANDOVER_MS);
    if (!next) {
      lost += waiting.length;
      notes.push(
        `none of ${waiting.map((w) => w.workflowId).join(', ')} held within ${HANDOVER_MS / 1000} s of ${holder.workflowId}'s end`,
      );
      break;
    }
    slowest = Math.max(slowest, (Date.now() - ended) / 1000);
    waiting.splice(waiting.indexOf(next), 1);
    holder = next;
  }
  if (!lost && !(await closedWithin(keeper, 15_000))) notes.push('the keeper did not end once nobody held');
  const together = await heldTogether(turns);
  if (together.length > 0) notes.push(`held together: ${together.join(', ')}`);
  return {
    name: `keeper terminated ${moment}`,
    passed: notes.length === 0,
    lost,
    duplicated: together.length,
    wrongProceeds: 0,
    recoveryS: slowest,
    notes,
  };
}

function moveOn(node: string) {
  return {
    node,
    from: `/srv/${node}/a`,
    to: `/srv/${node}/b`,
    startedBy: 'chaos',
    timings: { ...FAST_TIMINGS, lockAskAgainMs: ASK_AGAIN_MS },
  };
}

/** The first of `waiting` whose locks step is done, or none within `ms`. */
async function firstToHold(waiting: WorkflowHandle[], ms: number): Promise<WorkflowHandle | undefined> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(200))
    for (const handle of waiting)
      if (stepState(await handle.query(statusQuery), 'locks') === 'done') return handle;
  return undefined;
}

async function closedWithin(handle: WorkflowHandle, ms: number): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(200))
    if ((await handle.describe()).status.name !== 'RUNNING') return true;
  return false;
}

/**
 * From each runbook's own history: when it was granted its locks (the first locksGranted it received) and when
 * it let them go (its releaseLocks signal, or its close); the pairs whose spans overlap held together.
 */
async function heldTogether(runbooks: WorkflowHandle[]): Promise<string[]> {
  const spans = await Promise.all(
    runbooks.map(async (handle) => {
      const events = (await handle.fetchHistory()).events ?? [];
      const at = (e: (typeof events)[number]) =>
        Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;
      const granted = events.find(
        (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'locksGranted',
      );
      const released = events.find(
        (e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName === 'releaseLocks',
      );
      return {
        id: handle.workflowId,
        from: granted ? at(granted) : Infinity,
        to: at(released ?? events.at(-1)!),
      };
    }),
  );
  const together: string[] = [];
  for (const [i, a] of spans.entries())
    for (const b of spans.slice(i + 1))
      if (a.from < b.to && b.from < a.to) together.push(`${a.id} and ${b.id}`);
  return together;
}
