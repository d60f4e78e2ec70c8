import { runbookWorld, type RunbookWorld } from '../../test/support/runbook-world';
import type { WorkerProcess } from '../../test/support/worker-process';
import { temporal } from '@temporalio/proto';
import { copiesStartedOver } from './copy-resume';
import { drive, movedAgainAt, wrongProceeds } from './drive';
import { scheduledInOrder, watchHistory } from './history-watch';
import { failedRun, type ExperimentResult, type RunResult } from './result';
import { DATA_PATH_MOVE, EDGE_FLIP, type RunbookCase } from './runbook-cases';
import { duplicatedCount, duplicatedEffects, SideEffectRecorder, type SideEffects } from './side-effects';

const { PendingActivityState } = temporal.api.enums.v1;
const RUN_DEADLINE_MS = 300_000;

/** Where one run kills its worker. */
export type KillAt =
  | { at: 'none' }
  | { at: 'scheduled'; activity: string; occurrence: number }
  | { at: 'wait'; gate: string }
  | { at: 'random'; kills: KillPoint[] };

/** A kill a while (`afterMs`, 0: at once) after the `occurrence`th scheduling of `activity`. */
interface KillPoint {
  activity: string;
  occurrence: number;
  afterMs: number;
}

export function describeKill(kill: KillAt): string {
  switch (kill.at) {
    case 'none':
      return 'undisturbed';
    case 'scheduled':
      return `kill at ${kill.activity}#${kill.occurrence}`;
    case 'wait':
      return `kill waiting at ${kill.gate}`;
    case 'random':
      return `${kill.kills.length} random kills`;
  }
}

interface Measured {
  result: RunResult;
  effects: SideEffects;
  steps: string[];
  positions: KillAt[];
}

/** The worker of a run: one child process at a time; a kill is a SIGKILL and a new process right after. */
class Workers {
  current: WorkerProcess | undefined;
  readonly kills: { at: number; landed: string }[] = [];

  constructor(private readonly world: RunbookWorld) {}

  async start(): Promise<void> {
    this.current = await this.world.spawnWorker();
  }

  /** Kills the worker; says where it landed (inside which started activity, else between steps). */
  async kill(describe: (identity: string) => Promise<string>): Promise<void> {
    const victim = this.current;
    if (!victim) return;
    await victim.kill();
    const at = Date.now();
    const landed = await describe(victim.identity).catch(() => 'unknown');
    this.kills.push({ at, landed });
    await this.start();
  }
}

/** Undisturbed runs' side effects by runbook, for experiments that compare with one (measured once). */
const undisturbedEffects = new Map<RunbookCase['kind'], SideEffects>();

/** The side effects of an undisturbed run of `runbook`: measured earlier in this suite, else now. */
export async function undisturbedRun(world: RunbookWorld, runbook: RunbookCase): Promise<SideEffects> {
  const known = undisturbedEffects.get(runbook.kind);
  if (known) return known;
  const run = await runOnce(world, runbook, { at: 'none' });
  if (!run.result.passed)
    throw new Error(`an undisturbed ${runbook.kind} failed: ${run.result.notes.join('; ')}`);
  return run.effects;
}

/** One run of a runbook on a fresh node with the given kill; `undisturbed` is the reference to compare with. */
async function runOnce(
  world: RunbookWorld,
  runbook: RunbookCase,
  kill: KillAt,
  undisturbed?: Measured,
): Promise<Measured> {
  const name = `${runbook.kind} ${describeKill(kill)}`;
  const { node, start } = await runbook.seed(world);
  const recorder = await SideEffectRecorder.open(world.engine, node, world.mesh.layout.journal(node));
  const workers = new Workers(world);
  await workers.start();
  const handle = await start();
  const landedIn = async (identity: string) => {
    const { raw } = await handle.describe();
    const inside = (raw.pendingActivities ?? []).filter(
      (a) =>
        a.state === PendingActivityState.PENDING_ACTIVITY_STATE_STARTED && a.lastWorkerIdentity === identity,
    );
    return inside.length > 0
      ? `inside ${inside.map((a) => a.activityType?.name).join(', ')}`
      : 'between steps';
  };
  let closed = false;
  const killer = killLoop(world, handle.workflowId, kill, workers, landedIn, () => closed);
  const driven = await drive(handle, {
    answer: runbook.answer,
    deadlineMs: RUN_DEADLINE_MS,
    beforeDecision: async (waiting) => {
      if (kill.at === 'wait' && waiting.gate === kill.gate && workers.kills.length === 0)
        await workers.kill(async () => 'waiting');
    },
  });
  closed = true;
  await killer;
  const effects = await recorder.counts();
  recorder.close();
  await workers.current?.stop();

  const history = await handle.fetchHistory();
  const notes: string[] = [];
  const status = driven.status;
  const steps = status?.steps.map((s) => `${s.name}: ${s.state}`) ?? [];
  let lost = 0;
  if (driven.problem || status?.phase !== 'completed') {
    lost = 1;
    notes.push(driven.problem ?? `ended ${status?.phase}: ${status?.outcome ?? ''}`);
  }
  if (undisturbed && lost === 0 && JSON.stringify(steps) !== JSON.stringify(undisturbed.steps))
    notes.push(`steps differ from the undisturbed run: ${steps.join(', ')}`);
  for (const recheck of driven.rechecks) notes.push(`rechecked ${recheck}`);
  const wrong = status ? wrongProceeds(status, driven.waits) : [];
  notes.push(...wrong);
  let duplicated = 0;
  if (undisturbed) {
    duplicated = duplicatedCount(effects, undisturbed.effects);
    notes.push(...duplicatedEffects(effects, undisturbed.effects));
    if (effects.pushes !== undisturbed.effects.pushes)
      notes.push(`${effects.pushes} pushes applied, ${undisturbed.effects.pushes} undisturbed`);
  }
  for (const startedOver of copiesStartedOver(history)) {
    duplicated += 1;
    notes.push(startedOver);
  }
  if (kill.at !== 'none' && workers.kills.length === 0) notes.push('the kill never happened');
  let recoveryS: number | undefined;
  for (const { at, landed } of workers.kills) {
    notes.push(`killed ${landed}`);
    const moved = await movedAgainAt(world.client, handle.workflowId, at);
    if (moved !== undefined) recoveryS = Math.max(recoveryS ?? 0, (moved - at) / 1000);
  }
  const passed =
    lost === 0 &&
    wrong.length === 0 &&
    duplicated === 0 &&
    (kill.at === 'none' || workers.kills.length > 0) &&
    (!undisturbed || JSON.stringify(steps) === JSON.stringify(undisturbed.steps));
  if (kill.at === 'none' && passed) undisturbedEffects.set(runbook.kind, effects);
  // Every run's successor has health checks: dozens left running would load the machine for the rest.
  await world.retireNode(node);
  const positions: KillAt[] = [
    ...scheduledInOrder(history.events ?? []).map(({ activity, occurrence }) => ({
      at: 'scheduled' as const,
      activity,
      occurrence,
    })),
    ...driven.waits.map((w) => ({ at: 'wait' as const, gate: w.gate })),
  ];
  return {
    result: { name, passed, lost, duplicated, wrongProceeds: wrong.length, recoveryS, notes },
    effects,
    steps,
    positions,
  };
}

/**
 * Kills the worker where `kill` says: at the moment an activity is scheduled, or a random while after each of
 * a random run's positions (so a faster runbook cannot end before its kills).
 */
async function killLoop(
  world: RunbookWorld,
  workflowId: string,
  kill: KillAt,
  workers: Workers,
  landedIn: (identity: string) => Promise<string>,
  closed: () => boolean,
): Promise<void> {
  const targets: KillPoint[] =
    kill.at === 'scheduled'
      ? [{ activity: kill.activity, occurrence: kill.occurrence, afterMs: 0 }]
      : kill.at === 'random'
        ? [...kill.kills]
        : [];
  if (targets.length === 0) return;
  const seen: Record<string, number> = {};
  await watchHistory(
    world.client,
    workflowId,
    async (event) => {
      const activity = event.activityTaskScheduledEventAttributes?.activityType?.name;
      if (!activity) return false;
      seen[activity] = (seen[activity] ?? 0) + 1;
      const next = targets[0];
      if (next?.activity !== activity || next.occurrence !== seen[activity]) return false;
      targets.shift();
      if (next.afterMs > 0) await new Promise((resolve) => setTimeout(resolve, next.afterMs));
      if (!closed()) await workers.kill(landedIn);
      return targets.length === 0;
    },
    closed,
  );
}

/** `count` distinct scheduling positions of an undisturbed run, in its order, each with a wait of up to 1 s. */
export function randomKills(positions: KillAt[], count: number): KillPoint[] {
  const scheduled = positions.flatMap((p) => (p.at === 'scheduled' ? [p] : []));
  const chosen = new Set<number>();
  while (chosen.size < Math.min(count, scheduled.length))
    chosen.add(Math.floor(Math.random() * scheduled.length));
  return [...chosen]
    .sort((a, b) => a - b)
    .flatMap((i) => {
      const p = scheduled[i];
      return p
        ? [{ activity: p.activity, occurrence: p.occurrence, afterMs: Math.round(Math.random() * 1_000) }]
        : [];
    });
}

export interface WorkerKillPlan {
  /** How many kill positions to run per runbook; all of them when undefined. */
  sample?: Record<RunbookCase['kind'], number>;
  randomRuns: number;
  /** Only the positions whose name (`kill at copyTree#1`) holds this. */
  killAt?: string;
}

/** Every position an undisturbed run passes, or an evenly spread sample of them. */
function choose(positions: KillAt[], count: number | undefined): KillAt[] {
  if (count === undefined || count >= positions.length) return positions;
  const step = positions.length / count;
  return Array.from({ length: count }, (_, i) => positions[Math.floor(i * step + step / 2)]).filter(
    (p): p is KillAt => p !== undefined,
  );
}

/**
 * Experiment 1: the worker SIGKILLed at every step boundary (the moment each activity is scheduled, which
 * lands between steps or inside the activity the worker just picked up) and at every wait, one kill per run,
 * plus runs with repeated random kills; each compared with an undisturbed run of the same runbook.
 */
export async function workerKills(
  plan: WorkerKillPlan,
  log: (line: string) => void,
): Promise<ExperimentResult> {
  const started = Date.now();
  const runs: RunResult[] = [];
  await using world = await runbookWorld({ worker: 'none' });
  for (const runbook of [EDGE_FLIP, DATA_PATH_MOVE]) {
    const undisturbed = await runOnce(world, runbook, { at: 'none' });
    log(
      `  ${undisturbed.result.name}: ${undisturbed.result.passed ? 'ok' : undisturbed.result.notes.join('; ')}`,
    );
    runs.push(undisturbed.result);
    if (!undisturbed.result.passed) continue;
    const kills: KillAt[] = [
      ...choose(undisturbed.positions, plan.sample?.[runbook.kind]),
      ...Array.from({ length: plan.randomRuns }, () => ({
        at: 'random' as const,
        kills: randomKills(undisturbed.positions, 3),
      })),
    ].filter((kill) => plan.killAt === undefined || describeKill(kill).includes(plan.killAt));
    for (const kill of kills) {
      const r: RunResult = await runOnce(world, runbook, kill, undisturbed).then(
        (run) => run.result,
        (error: unknown) =>
          failedRun(
            `${runbook.kind} ${describeKill(kill)}`,
            `the harness failed: ${error instanceof Error ? error.message : String(error)}`,
          ),
      );
      log(
        `  ${r.name}: ${r.passed ? 'ok' : 'FAILED'}${r.recoveryS !== undefined ? `, moved again after ${r.recoveryS.toFixed(1)} s` : ''} (${r.notes.join('; ')})`,
      );
      runs.push(r);
    }
  }
  return { experiment: 'worker SIGKILL', runs, seconds: (Date.now() - started) / 1000 };
}
