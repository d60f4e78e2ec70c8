import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { seedEdgeFlip } from '../../test/support/edge-flip-seed';
import { runbookWorld, type RunbookWorld } from '../../test/support/runbook-world';
import { edgeFlip } from '../../workflows';
import { copiesStartedOver } from './copy-resume';
import { drive, edgeFlipAnswer, movedAgainAt, wrongProceeds, type Driven } from './drive';
import { CliWorker } from './cli-worker';
import { failedRun, type ExperimentResult, type RunResult } from './result';
import { CHAOS_TIMINGS, DATA_PATH_MOVE, EDGE_FLIP, type RunbookCase } from './runbook-cases';
import { duplicatedCount, duplicatedEffects, SideEffectRecorder, type SideEffects } from './side-effects';
import { undisturbedRun } from './worker-kills';

const { PendingActivityState } = temporal.api.enums.v1;
const RUN_DEADLINE_MS = 400_000;
/**
 * A runbook that does not move for this long after a kill stalled: the activities' heartbeat timeout
 * (10 s), after which the server gives a dead worker's activity to the live one, and 20 s for the retried
 * activity itself on a loaded machine.
 */
const STALL_S = 30;

/**
 * A second edge flip beside the first in one world: a world's nodes share its module definitions, so its
 * modules have names of their own; its side effects are counted under the first's names.
 */
const SECOND_EDGE_FLIP: RunbookCase & { renamed: Record<string, string> } = {
  kind: 'edge-flip',
  answer: edgeFlipAnswer,
  renamed: { 'caddy-b.': 'caddy.', 'route-proxy-b.': 'route-proxy.' },
  async seed(world) {
    const input = await seedEdgeFlip(world, {
      leftovers: true,
      predecessor: 'caddy-b',
      successor: 'route-proxy-b',
    });
    return {
      node: input.node,
      start: () => world.start(edgeFlip, { ...input, timings: { ...input.timings, ...CHAOS_TIMINGS } }),
    };
  },
};

function renamed(effects: SideEffects, names: Record<string, string> = {}): SideEffects {
  const lifecycle: Record<string, number> = {};
  for (const [key, count] of Object.entries(effects.lifecycle)) {
    const prefix = Object.keys(names).find((p) => key.startsWith(p));
    const name = prefix ? `${names[prefix]}${key.slice(prefix.length)}` : key;
    lifecycle[name] = (lifecycle[name] ?? 0) + count;
  }
  return { ...effects, lifecycle };
}

/** A SIGKILL of the restarted worker: when, which runbooks' activities it held (by workflow id), and how long its successor took to poll. */
interface Kill {
  at: number;
  inside: Map<string, string[]>;
  restartS?: number;
}

/** When the victim is killed: a random moment `firstLookMs` after it polls, then the first moment it holds a started activity, or `lastMs` at the latest. */
interface KillTiming {
  firstLookMs: [number, number];
  lastMs: number;
}

const QUICK_TIMING: KillTiming = { firstLookMs: [200, 800], lastMs: 1_500 };
const FULL_TIMING: KillTiming = { firstLookMs: [1_000, 3_000], lastMs: 6_000 };
const LOOK_EVERY_MS = 50;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One worker stays up; the other is SIGKILLed and started again at once, `kills` times at most. It is
 * killed while it works: the first time it is seen holding a started activity, a random moment after it
 * polls, or at the latest `lastMs` after it polls (a runbook that is quicker than a clock would otherwise
 * finish before any kill).
 */
class KilledInALoop {
  readonly kills: Kill[] = [];
  problem: string | undefined;

  constructor(
    private readonly world: RunbookWorld,
    public victim: CliWorker,
  ) {}

  async run(
    handles: WorkflowHandle[],
    open: () => boolean,
    kills: number,
    timing: KillTiming,
  ): Promise<void> {
    while (open() && this.kills.length < kills) {
      const inside = await this.atWork(handles, open, timing);
      if (!open()) return;
      await this.victim.kill();
      const kill: Kill = { at: Date.now(), inside };
      this.kills.push(kill);
      try {
        this.victim = await CliWorker.start(this.world.taskQueue, this.world.stateDir);
        kill.restartS = (Date.now() - kill.at) / 1000;
      } catch (error) {
        this.problem = `the killed worker did not start again: ${error instanceof Error ? error.message : String(error)}`;
        return;
      }
    }
  }

  /** Waits until the victim holds a started activity (or `lastMs` passed); the activities it holds, by workflow id. */
  private async atWork(handles: WorkflowHandle[], open: () => boolean, timing: KillTiming) {
    const since = Date.now();
    const [low, high] = timing.firstLookMs;
    await sleep(low + Math.random() * (high - low));
    for (;;) {
      const inside = await this.held(handles);
      if (inside.size > 0 || !open() || Date.now() - since >= timing.lastMs) return inside;
      await sleep(LOOK_EVERY_MS);
    }
  }

  private async held(handles: WorkflowHandle[]): Promise<Map<string, string[]>> {
    const inside = new Map<string, string[]>();
    for (const handle of handles) {
      const { raw } = await handle.describe().catch(() => ({ raw: { pendingActivities: [] } }));
      const held = (raw.pendingActivities ?? [])
        .filter(
          (a) =>
            a.state === PendingActivityState.PENDING_ACTIVITY_STATE_STARTED &&
            a.lastWorkerIdentity === this.victim.identity,
        )
        .map((a) => a.activityType?.name ?? '?');
      if (held.length > 0) inside.set(handle.workflowId, held);
    }
    return inside;
  }
}

interface Started {
  runbook: RunbookCase & { renamed?: Record<string, string> };
  handle: WorkflowHandle;
  recorder: SideEffectRecorder;
}

/** One runbook's run against its undisturbed one, and how long it took to move again after each kill. */
async function judge(
  world: RunbookWorld,
  started: Started,
  driven: Driven & { closedAt: number },
  kills: Kill[],
  undisturbed: SideEffects,
): Promise<RunResult> {
  const { runbook, handle } = started;
  const effects = renamed(await started.recorder.counts(), runbook.renamed);
  started.recorder.close();
  const notes: string[] = [];
  const status = driven.status;
  let lost = 0;
  if (driven.problem || status?.phase !== 'completed') {
    lost = 1;
    notes.push(driven.problem ?? `ended ${status?.phase}: ${status?.outcome ?? ''}`);
  }
  for (const recheck of driven.rechecks) notes.push(`rechecked ${recheck}`);
  const wrong = status ? wrongProceeds(status, driven.waits) : [];
  notes.push(...wrong);
  let duplicated = duplicatedCount(effects, undisturbed);
  notes.push(...duplicatedEffects(effects, undisturbed));
  const pushesDiffer = effects.pushes !== undisturbed.pushes;
  if (pushesDiffer) notes.push(`${effects.pushes} pushes applied, ${undisturbed.pushes} undisturbed`);
  const history = await handle.fetchHistory();
  for (const startedOver of copiesStartedOver(history)) {
    duplicated += 1;
    notes.push(startedOver);
  }
  let recoveryS: number | undefined;
  let stalled = false;
  const during = kills.filter((kill) => kill.at < driven.closedAt);
  for (const kill of during) {
    const inside = kill.inside.get(handle.workflowId);
    if (inside) notes.push(`killed inside ${inside.join(', ')}`);
    const moved = await movedAgainAt(world.client, handle.workflowId, kill.at);
    if (moved === undefined) continue;
    const seconds = (moved - kill.at) / 1000;
    recoveryS = Math.max(recoveryS ?? 0, seconds);
    if (seconds > STALL_S) {
      stalled = true;
      notes.push(`stalled ${seconds.toFixed(0)} s after a kill`);
    }
  }
  notes.push(`${during.length} kills while it ran`);
  return {
    name: `${runbook.kind} on ${status?.node ?? handle.workflowId}`,
    passed: lost === 0 && wrong.length === 0 && duplicated === 0 && !pushesDiffer && !stalled,
    lost,
    duplicated,
    wrongProceeds: wrong.length,
    ...(recoveryS !== undefined ? { recoveryS } : {}),
    notes,
  };
}

/** Seeds a node for each runbook, then starts them all: an edge flip (quick), or two edge flips and two data-path moves. */
async function startAll(world: RunbookWorld, quick: boolean): Promise<Started[]> {
  const runbooks = quick ? [EDGE_FLIP] : [EDGE_FLIP, DATA_PATH_MOVE, SECOND_EDGE_FLIP, DATA_PATH_MOVE];
  const seeded = [];
  for (const runbook of runbooks) {
    const { node, start } = await runbook.seed(world);
    const recorder = await SideEffectRecorder.open(world.engine, node, world.mesh.layout.journal(node));
    seeded.push({ runbook, recorder, start });
  }
  return Promise.all(seeded.map(async ({ start, ...rest }) => ({ ...rest, handle: await start() })));
}

/**
 * Experiment 10: two worker processes poll the same queues (the runbook queue and every node's); one stays
 * up, the other is SIGKILLed while it works and started again, in a loop, while several runbooks (edge
 * flips and data-path moves, on nodes of their own) run at once. Each runbook must complete with no
 * container event or push beyond its undisturbed run's, no wrong proceed, and none may stall: after each
 * kill it moves again within the heartbeat timeout and a margin.
 */
export async function twoWorkers(quick: boolean, log: (line: string) => void): Promise<ExperimentResult> {
  const started = Date.now();
  await using world = await runbookWorld({ worker: 'none' });
  const undisturbed = new Map(
    await Promise.all(
      (quick ? [EDGE_FLIP] : [EDGE_FLIP, DATA_PATH_MOVE]).map(
        async (r) => [r.kind, await undisturbedRun(world, r)] as const,
      ),
    ),
  );
  log(`  undisturbed references ready after ${((Date.now() - started) / 1000).toFixed(0)} s`);
  const [steady, victim] = await Promise.all([
    CliWorker.start(world.taskQueue, world.stateDir),
    CliWorker.start(world.taskQueue, world.stateDir),
  ]);
  const loop = new KilledInALoop(world, victim);
  let starts: Started[] = [];
  let driven: (Driven & { closedAt: number })[] = [];
  try {
    starts = await startAll(world, quick);
    let open = starts.length;
    const killing = loop.run(
      starts.map((s) => s.handle),
      () => open > 0,
      quick ? 2 : 40,
      quick ? QUICK_TIMING : FULL_TIMING,
    );
    driven = await Promise.all(
      starts.map(async ({ runbook, handle }) => {
        const done = await drive(handle, { answer: runbook.answer, deadlineMs: RUN_DEADLINE_MS });
        open--;
        return { ...done, closedAt: Date.now() };
      }),
    );
    await killing;
  } finally {
    await Promise.all([steady.stop(), loop.victim.stop()]);
  }
  const restarts = loop.kills.flatMap((k) => (k.restartS === undefined ? [] : [k.restartS]));
  log(
    `  ${loop.kills.length} kills of one of the two workers; it polled again after ${restarts.map((r) => r.toFixed(1)).join(', ')} s`,
  );
  const runs: RunResult[] = [];
  for (const [i, start] of starts.entries()) {
    const done = driven[i];
    const reference = undisturbed.get(start.runbook.kind);
    const run =
      done && reference
        ? await judge(world, start, done, loop.kills, reference)
        : failedRun(start.handle.workflowId, 'not judged');
    log(
      `  ${run.name}: ${run.passed ? 'ok' : 'FAILED'}${run.recoveryS !== undefined ? `, slowest move after a kill ${run.recoveryS.toFixed(1)} s` : ''} (${run.notes.join('; ')})`,
    );
    runs.push(run);
  }
  if (loop.problem) runs.push(failedRun('the worker killed in a loop', loop.problem));
  if (loop.kills.length === 0) runs.push(failedRun('the worker killed in a loop', 'it was never killed'));
  return { experiment: 'two workers, one killed', runs, seconds: (Date.now() - started) / 1000 };
}
