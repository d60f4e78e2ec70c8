import type { WorkflowHandle } from '@temporalio/client';
import type { Reminder } from '../../activities/runbook/notifier';
import { edgeFlip } from '../../workflows';
import { statusQuery } from '../../workflows/contracts';
import { lockKeeperId } from '../../workflows/lock';
import { RunbookPolicy } from '../../workflows/policy';
import { seedEdgeFlip } from '../../test/support/edge-flip-seed';
import { runbookWorld, type RunbookWorld } from '../../test/support/runbook-world';
import { statusWhen, waitingAt } from '../../test/support/runbooks';
import { drive, edgeFlipAnswer, movedAgainAt, wrongProceeds } from './drive';
import { failedRun, type ExperimentResult, type RunResult } from './result';
import { CHAOS_TIMINGS } from './runbook-cases';

/**
 * The shortened clock: one second stands for the default reminder interval, half an hour (a second is
 * about the dev server's timer resolution), so a "day" passes in 48 s. The first reminder comes after half
 * an interval, as the defaults' 15 minutes.
 */
const INTERVAL_MS = 1_000;
const INTERVALS_PER_DAY = 48;
/** Events one reminder adds: its timer (2), two workflow tasks (6), its activity (3), a search attribute. */
const EVENTS_PER_REMINDER = 12;
const GATE = 'approve-stop-predecessor';

/** How many reminders the back-off sends in `intervals`: after ½, then 1, 2, 4 … up to 48 intervals apart. */
export function backedOffReminders(intervals: number): number {
  let at = 0.5;
  let gap = 1;
  let count = 0;
  while (at <= intervals) {
    count += 1;
    at += gap;
    gap = Math.min(gap * 2, INTERVALS_PER_DAY);
  }
  return count;
}

interface Size {
  events: number;
  bytes: number;
}

async function sizeOf(handle: WorkflowHandle): Promise<Size> {
  const { historyLength, raw } = await handle.describe();
  return { events: historyLength, bytes: Number(raw.workflowExecutionInfo?.historySizeBytes ?? 0) };
}

/** An edge flip driven to its end at once: the steps (`name: state`) a long wait must end with too. */
async function undisturbedSteps(world: RunbookWorld): Promise<string[]> {
  const handle = await world.start(edgeFlip, {
    ...(await seedEdgeFlip(world)),
    timings: { ...CHAOS_TIMINGS },
  });
  const driven = await drive(handle, { answer: edgeFlipAnswer, deadlineMs: 300_000 });
  if (driven.problem || driven.status?.phase !== 'completed')
    throw new Error(`an undisturbed edge flip did not complete: ${driven.problem ?? driven.status?.phase}`);
  return driven.status.steps.map((s) => `${s.name}: ${s.state}`);
}

async function longWait(
  world: RunbookWorld,
  checkpoints: number[],
  reminders: Reminder[],
  expectedSteps: string[],
  log: (line: string) => void,
): Promise<RunResult> {
  const name = `edge-flip waits at ${GATE} for ${(Math.max(...checkpoints) / INTERVALS_PER_DAY).toFixed(1)} "days"`;
  const handle = await world.start(edgeFlip, {
    ...(await seedEdgeFlip(world)),
    timings: { ...CHAOS_TIMINGS },
  });
  const waiting = await statusWhen(handle, waitingAt(GATE), 300_000);
  const since = Date.parse(waiting.waiting?.since ?? '');
  const keeper = world.client.workflow.getHandle(lockKeeperId(world.taskQueue));
  const keeperSize = () => sizeOf(keeper).catch((): Size => ({ events: 0, bytes: 0 }));
  const [start, keeperStart] = [await sizeOf(handle), await keeperSize()];
  const notes: string[] = [];
  let wrong = 0;
  let unbounded = false;
  for (const intervals of checkpoints) {
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, since + intervals * INTERVAL_MS - Date.now())),
    );
    const [now, keeperNow] = [await sizeOf(handle), await keeperSize()];
    const status = await handle.query(statusQuery);
    const sent = status.waiting?.reminders ?? 0;
    const grown = now.events - start.events;
    const allowed = EVENTS_PER_REMINDER * (backedOffReminders(intervals) + 1);
    const line =
      `after ${intervals} intervals (${((intervals * 30) / 60).toFixed(1)} h): ${now.events} events ` +
      `(+${grown} while waiting, at most ${allowed} allowed), ${now.bytes} bytes, ${sent} reminders; ` +
      `lock keeper +${keeperNow.events - keeperStart.events} events`;
    log(`    ${line}`);
    notes.push(line);
    if (grown > allowed || keeperNow.events > keeperStart.events) unbounded = true;
    if (status.phase !== 'waiting' || status.waiting?.gate !== GATE) {
      wrong += 1;
      notes.push(`moved on without a decision: ${status.phase} at ${status.waiting?.gate ?? 'no gate'}`);
    }
  }
  if (unbounded) notes.push('the history grew faster than the back-off allows: it is not bounded');
  if (reminders.length === 0) notes.push('no reminder arrived while it waited');
  const decidedAt = Date.now();
  const driven = await drive(handle, { answer: edgeFlipAnswer, deadlineMs: 300_000 });
  const status = driven.status;
  const lost = driven.problem || status?.phase !== 'completed' ? 1 : 0;
  if (lost) notes.push(driven.problem ?? `ended ${status?.phase}`);
  const steps = status?.steps.map((s) => `${s.name}: ${s.state}`) ?? [];
  const sameEnd = JSON.stringify(steps) === JSON.stringify(expectedSteps);
  if (!lost && !sameEnd) notes.push(`steps differ from the undisturbed run: ${steps.join(', ')}`);
  const late = status ? wrongProceeds(status, driven.waits) : [];
  notes.push(...late);
  const moved = await movedAgainAt(world.client, handle.workflowId, decidedAt);
  return {
    name,
    passed: lost === 0 && wrong === 0 && late.length === 0 && !unbounded && sameEnd && reminders.length > 0,
    lost,
    duplicated: 0,
    wrongProceeds: wrong + late.length,
    ...(moved ? { recoveryS: (moved - decidedAt) / 1000 } : {}),
    notes,
  };
}

/**
 * Experiment 9: an edge flip waits at its approval for "days" on a shortened clock (the worker's reminder
 * policy, the only timer a waiting runbook has, set to a second for the default half hour). Its history,
 * and the lock keeper's, are measured as the wait grows: it must grow no faster than the reminder back-off
 * (no per-tick events beyond a reminder's own), the runbook must never move on by itself, and after the
 * late approval it must end with the same steps as an undisturbed flip.
 */
export async function longWaits(quick: boolean, log: (line: string) => void): Promise<ExperimentResult> {
  const started = Date.now();
  const reminders: Reminder[] = [];
  const checkpoints = quick ? [5, 10] : [10, 100, 300];
  await using world = await runbookWorld({
    deps: {
      policy: RunbookPolicy.parse({ reminders: { afterMs: INTERVAL_MS / 2, everyMs: INTERVAL_MS } }),
      notifier: { describe: 'the chaos suite', send: async (reminder) => void reminders.push(reminder) },
    },
  });
  const run = await undisturbedSteps(world)
    .then((steps) => {
      reminders.length = 0;
      return longWait(world, checkpoints, reminders, steps, log);
    })
    .catch((error: unknown) =>
      failedRun(
        'edge-flip long wait',
        `the harness failed: ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
  log(`  ${run.name}: ${run.passed ? 'ok' : 'FAILED'}`);
  return { experiment: 'long waits', runs: [run], seconds: (Date.now() - started) / 1000 };
}
