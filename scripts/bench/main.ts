import { cpus, loadavg } from 'node:os';
import { Timings } from '../../workflows/contracts';
import { BenchEnv } from './bench-env';
import { timeCli } from './cli-timing';
import { darkEdgeRun, type DarkEdgeRun } from './dark-edge';
import { FLEET_SERVER_ARGS } from './fleet';
import { fleetCurve } from './fleet-curve';
import { devServerSite, labSite } from './fleet-site';
import { runContender, type ContenderRun } from './contenders';
import { measureIdle, type IdleRates } from './idle';
import { LabContenders } from './lab-contenders';
import { LAB_NODE, LabSide, PG_SETTLE_MS } from './lab-side';
import { onLab, parseBenchOptions, USAGE, type BenchOptions } from './options';
import { renderReport } from './report';
import type { BenchResult } from './result';
import { runAtScale, type ScaleResult } from './scale';
import { SHELL_CHECKS } from './shell';
import { ratio } from './stats';
import { ATTRIBUTION } from './step-overhead';
import { summarizeContender } from './summaries';

/**
 * `npm run bench`: the demo's edge flip through the executor, by a shell script and by a minimal dockerode
 * script, alternating round by round on one machine, then the CLI's start-up and (with --scale) many
 * flips at once, and (with --fleet) fleet runbooks over simulated nodes. Progress goes to stderr, the result to stdout (tables, or one JSON document with --json).
 * A measuring script, never a test: it asserts no time; it exits 1 only when a flip did not complete.
 */

const MB = 2 ** 20;
/** With --lab: how long both sides are left alone before the rounds, to show what they do by themselves. */
const IDLE_MS = 10_000;
const QUICK_IDLE_MS = 5_000;
const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

const outcome = (run: ContenderRun) =>
  run.ok ? `${(run.wallMs / 1000).toFixed(2)} s` : `FAILED: ${run.failure}`;

async function rounds(
  env: BenchEnv,
  lab: LabContenders | undefined,
  options: BenchOptions,
  windowMs: number,
): Promise<ContenderRun[]> {
  const runs: ContenderRun[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    for (const contender of options.contenders) {
      const run = await runContender(env, lab, contender, round, windowMs);
      log(`round ${round}/${options.rounds} ${contender}: ${outcome(run)}`);
      runs.push(run);
      await lab?.settle({ wait: false });
    }
  }
  await lab?.settle({ wait: true });
  return runs;
}

/** The lab taken, warmed up (unless --quick) and both sides left alone for a while: their idle rates. */
async function prepareLab(env: BenchEnv, lab: LabContenders, options: BenchOptions, windowMs: number) {
  await lab.prepare();
  if (options.warmup) {
    const warm = await runContender(env, lab, 'lab-executor', 0, windowMs);
    log(`lab warm-up flip: ${outcome(warm)}`);
    await lab.settle({ wait: true });
  }
  const idle = await measureIdle(env.meters(), lab.side, options.quick ? QUICK_IDLE_MS : IDLE_MS);
  log(`both sides idle for ${idle.seconds.toFixed(0)} s`);
  return idle;
}

/**
 * The fleet curve on the dev server and, with --lab, on the lab's Temporal too (the lab taken as for a story,
 * so no lab test's runbooks share its server while the fleets are metered).
 */
async function fleets(env: BenchEnv, side: LabSide | undefined, sizes: number[]) {
  if (side) await side.story();
  return fleetCurve(env, [devServerSite(env), ...(side ? [labSite(side)] : [])], sizes, log);
}

async function bench(
  env: BenchEnv,
  lab: LabContenders | undefined,
  options: BenchOptions,
): Promise<BenchResult> {
  const startedAt = new Date().toISOString();
  const loadAtStart = loadavg();
  const timings = Timings.parse({});
  const windowMs = timings.stabilityWindowMs;
  const idleRss = env.worker.rss();
  const usesExecutor = options.contenders.some((c) => c.startsWith('executor')) || options.scale.length > 0;
  // The CLI is timed on a completed flip's status, as an operator asks after one: the warm-up's, at least.
  const cliNeedsFlip = options.cli && !options.contenders.includes('executor');
  const warm =
    (options.warmup && usesExecutor) || cliNeedsFlip
      ? await runContender(env, lab, 'executor', 0, windowMs)
      : undefined;
  if (warm) log(`warm-up flip: ${outcome(warm)}`);
  const idle: IdleRates | undefined =
    lab && options.contenders.some(onLab) ? await prepareLab(env, lab, options, windowMs) : undefined;
  env.worker.resetPeak();
  const runs = await rounds(env, lab, options, windowMs);
  const peakRss = env.worker.peakRss();
  const completed = [warm, ...runs].filter((run) => run?.contender === 'executor' && run.ok);
  const statusNode = completed.at(-1)?.executor?.node ?? 'bench-none';
  const cli = options.cli
    ? await timeCli({ address: env.address, taskQueue: env.taskQueue }, statusNode, options.cliSamples)
    : undefined;
  if (cli) log('CLI timed');
  const scale: ScaleResult[] = [];
  for (const count of options.scale) {
    log(`scale: ${count} edge flip(s) at once`);
    const at = await runAtScale(env, count, windowMs);
    log(
      `scale ${count}: ${at.completed}/${at.runbooks} completed in ${(at.totalMs / 1000).toFixed(1)} s, ` +
        `step overhead median ${at.stepOverheadMs?.median.toFixed(0) ?? '-'} ms, worker peak ${at.workerPeakRssMb.toFixed(0)} MB; ` +
        `floor ${at.floor.completed}/${at.runbooks} in ${(at.floor.totalMs / 1000).toFixed(1)} s`,
    );
    scale.push(at);
  }
  const darkEdge: DarkEdgeRun[] = [];
  for (let round = 1; options.darkEdge && round <= options.rounds; round++)
    for (const controllerDown of [false, true]) {
      const run = await darkEdgeRun(env, controllerDown, round);
      log(
        `dark edge ${round}/${options.rounds}, controller ${controllerDown ? 'down' : 'up'}: ${run.ok ? `lit ${run.litAfterFailedProbeMs} ms after the failed probe` : `FAILED: ${run.failure}`}`,
      );
      darkEdge.push(run);
    }
  const fleet = options.fleet.length > 0 ? await fleets(env, lab?.side, options.fleet) : undefined;
  const contenders = options.contenders.map((name) => summarizeContender(name, runs));
  const wall = (name: string) => contenders.find((c) => c.contender === name)?.wallMs;
  const lessWait = (name: string) =>
    contenders.find((c) => c.contender === name)?.wallWithoutServedAfterStopMs;
  return {
    bench: 'edge-flip',
    startedAt,
    machine: { cpus: cpus().length, loadAtStart, loadAtEnd: loadavg(), node: process.version },
    options: {
      rounds: options.rounds,
      quick: options.quick,
      lab: options.lab,
      contenders: options.contenders,
      warmup: options.warmup,
      scale: options.scale,
      fleet: options.fleet,
    },
    ...(lab
      ? {
          lab: {
            temporal: lab.side.lab.temporal.address,
            namespace: lab.side.lab.temporal.namespace,
            node: LAB_NODE,
            pgSettleMs: PG_SETTLE_MS,
          },
        }
      : {}),
    ...(idle ? { idle } : {}),
    timings,
    stabilityWindowMs: windowMs,
    contenders,
    ratios: {
      'executor/shell': ratio(wall('executor'), wall('shell')),
      'executor/floor': ratio(wall('executor'), wall('floor')),
      'executor-leftovers/shell': ratio(wall('executor-leftovers'), wall('shell')),
      'executor-leftovers/floor': ratio(wall('executor-leftovers'), wall('floor')),
      'shell/floor': ratio(wall('shell'), wall('floor')),
      'lab-executor/lab-shell': ratio(wall('lab-executor'), wall('lab-shell')),
      'lab-executor/executor': ratio(wall('lab-executor'), wall('executor')),
      'lab-shell/shell': ratio(wall('lab-shell'), wall('shell')),
    },
    ratiosWithoutServedAfterStop: {
      'executor/shell': ratio(lessWait('executor'), lessWait('shell')),
      'executor/floor': ratio(lessWait('executor'), lessWait('floor')),
      'lab-executor/lab-shell': ratio(lessWait('lab-executor'), lessWait('lab-shell')),
    },
    worker: { idleRssMb: idleRss / MB, peakRssMb: peakRss / MB },
    ...(cli ? { cli } : {}),
    scale,
    ...(options.darkEdge ? { darkEdge } : {}),
    ...(fleet ? { fleet } : {}),
    notes: { attribution: ATTRIBUTION, shellDoes: SHELL_CHECKS.does, shellDoesNot: SHELL_CHECKS.doesNot },
    runs,
  };
}

async function main(): Promise<number> {
  let options: BenchOptions;
  try {
    options = parseBenchOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  // The lab first: when it is down, the bench says so before it starts anything of its own.
  const side = options.lab ? await LabSide.open(log) : undefined;
  const lab = side && new LabContenders(side);
  // A fleet's cost includes what Temporal writes: the dev server keeps its database in a file to show it.
  const fleets = options.fleet.length > 0;
  const env = await BenchEnv.start(log, {
    databaseFile: fleets,
    serverArgs: fleets ? FLEET_SERVER_ARGS : [],
  }).catch(async (error: unknown) => {
    await side?.close();
    throw error;
  });
  // A failure to clean up is reported after, never instead of, the bench's own failure.
  const closed = async () => {
    await side?.close().catch((error: unknown) => log(`resetting the lab: ${String(error)}`));
    await env.close().catch((error: unknown) => log(`cleaning up: ${String(error)}`));
  };
  const interrupted = (signal: NodeJS.Signals) => {
    log(`${signal}: removing what the bench made`);
    void closed().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
  try {
    const result = await bench(env, lab, options).catch((error: unknown) => {
      // Said before the clean-up, which closes the client under calls that may still be retrying.
      log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      throw error;
    });
    process.stdout.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : `${renderReport(result)}\n`);
    const allDone =
      result.runs.every((run) => run.ok) &&
      result.scale.every((s) => s.completed === s.runbooks) &&
      (result.darkEdge ?? []).every((run) => run.ok) &&
      (result.fleet?.runs ?? []).every((run) => run.phase === 'completed');
    return allDone ? 0 : 1;
  } finally {
    await closed();
  }
}

void main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
