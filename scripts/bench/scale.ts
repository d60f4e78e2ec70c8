import type { BenchEnv } from './bench-env';
import { devServerSite, flipThroughExecutor, seedEdgeFlip, type ExecutorRun } from './executor';
import { flipOnFloor, setUpFloorFlip, type FloorFlip } from './floor';
import { summarize, type Summary } from './stats';

/** N edge flips started at once on N nodes, all on the one worker. */
export interface ScaleResult {
  runbooks: number;
  completed: number;
  /** From the first start to the last runbook's end. */
  totalMs: number;
  runbookWallMs: Summary | undefined;
  stepOverheadMs: Summary | undefined;
  workerPeakRssMb: number;
  failures: string[];
  /** The same number of flips by the floor (dockerode in the bench's process) at once, right after. */
  floor: FloorAtScale;
}

/** What the machine itself manages at this count: no executor, the same containers and health checks. */
export interface FloorAtScale {
  completed: number;
  totalMs: number;
  flipMs: Summary | undefined;
  failures: string[];
}

const SEEDING_AT_ONCE = 4;

/** Seeds `count` nodes a few at a time (set-up, not measured), each with modules and ports of its own. */
async function seedNodes(env: BenchEnv, count: number) {
  const nodes = Array.from({ length: count }, () => env.newNode('sc'));
  const inputs = [];
  for (let i = 0; i < nodes.length; i += SEEDING_AT_ONCE) {
    const batch = nodes.slice(i, i + SEEDING_AT_ONCE);
    inputs.push(
      ...(await Promise.all(
        batch.map((node) => seedEdgeFlip(env, node, { leftovers: false, ownModules: true })),
      )),
    );
  }
  return inputs;
}

/** `count` floor flips at once, set up a few at a time beforehand; removes their containers afterwards. */
async function floorAtScale(env: BenchEnv, count: number, windowMs: number): Promise<FloorAtScale> {
  const flips: FloorFlip[] = [];
  try {
    for (let i = 0; i < count; i += SEEDING_AT_ONCE) {
      const batch = Math.min(SEEDING_AT_ONCE, count - i);
      flips.push(...(await Promise.all(Array.from({ length: batch }, () => setUpFloorFlip(env, windowMs)))));
    }
    const started = Date.now();
    const settled = await Promise.allSettled(flips.map((flip) => flipOnFloor(env, flip)));
    const totalMs = Date.now() - started;
    const done = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.wallMs] : []));
    return {
      completed: done.length,
      totalMs,
      flipMs: summarize(done),
      failures: settled.flatMap((s, i) =>
        s.status === 'rejected' ? [`floor ${flips[i]?.node}: ${String(s.reason)}`] : [],
      ),
    };
  } finally {
    for (const flip of flips) await env.removeNode(flip.node);
  }
}

/** Runs `count` flips without leftovers at once, then the floor's; removes their containers afterwards. */
export async function runAtScale(env: BenchEnv, count: number, windowMs: number): Promise<ScaleResult> {
  const executor = await executorAtScale(env, count);
  return { ...executor, floor: await floorAtScale(env, count, windowMs) };
}

async function executorAtScale(env: BenchEnv, count: number): Promise<Omit<ScaleResult, 'floor'>> {
  const inputs = await seedNodes(env, count);
  try {
    env.worker.resetPeak();
    const started = Date.now();
    // One flip the bench could not follow (a client call timing out on a loaded server) is a failure of
    // that flip, not of the other runs.
    const settled = await Promise.allSettled(
      inputs.map((input) => flipThroughExecutor(devServerSite(env), input)),
    );
    const totalMs = Date.now() - started;
    const runs: ExecutorRun[] = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const lost = settled.flatMap((s, i) =>
      s.status === 'rejected' ? [`${inputs[i]?.node}: the bench lost track: ${String(s.reason)}`] : [],
    );
    const completed = runs.filter((run) => run.completed);
    return {
      runbooks: count,
      completed: completed.length,
      totalMs,
      runbookWallMs: summarize(completed.map((run) => run.wallMs)),
      stepOverheadMs: summarize(completed.flatMap((run) => run.steps.map((s) => s.overheadMs))),
      workerPeakRssMb: env.worker.peakRss() / 2 ** 20,
      failures: [...lost, ...runs.flatMap((run) => (run.failure ? [`${run.node}: ${run.failure}`] : []))],
    };
  } finally {
    for (const input of inputs) await env.removeNode(input.node);
  }
}
