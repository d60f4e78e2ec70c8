import { ChaosEnv } from './chaos-env';
import { ChaosUsageError, parseChaosOptions, type ChaosOptions, type ExperimentName } from './options';
import { allHeld, failedRun, type ExperimentResult } from './result';
import { renderTable } from './table';
import { badOperatorInput } from './bad-operator-input';
import { concurrentStarts } from './concurrent-starts';
import { crossedProbes } from './crossed-probes';
import { dockerRestart } from './docker-restart';
import { hostileMeshInput } from './hostile-mesh-input';
import { keeperLost } from './keeper-lost';
import { lateDecisions } from './late-decisions';
import { resets } from './reset';
import { longWaits } from './long-waits';
import { serverRestart } from './server-restart';
import { terminalDies } from './terminal-dies';
import { twoWorkers } from './two-workers';
import { workerKills } from './worker-kills';
import { labExperiment } from './lab/experiments';
import { forgedStarts } from './forged-starts';

/**
 * `npm run chaos`: injects faults and bad input into the real stack (a Temporal dev server of its own with
 * a database file, the local mesh on the real Docker engine, runbook workers in child processes, the
 * compiled CLI) and prints, per experiment, how many runs held and what was lost, duplicated or passed
 * wrongly. Exits 1 when any run failed or any of those counts is not zero, 2 on bad options.
 */
type Experiment = (
  env: ChaosEnv,
  options: ChaosOptions,
  log: (line: string) => void,
) => Promise<ExperimentResult>;

const EXPERIMENT_RUNNERS: Partial<Record<ExperimentName, Experiment>> = {
  'worker-kill': (_env, options, log) =>
    workerKills(
      options.killAt !== undefined
        ? { randomRuns: 1, killAt: options.killAt }
        : options.quick
          ? { sample: { 'edge-flip': 2, 'data-path-move': 1 }, randomRuns: 0 }
          : { randomRuns: 1 },
      log,
    ),
  'server-restart': (env, options, log) => serverRestart(env, options.quick, log),
  'hostile-mesh-input': (_env, options, log) => hostileMeshInput(options.quick, log),
  'bad-operator-input': (env, options, log) => badOperatorInput(env, options.quick, log),
  'concurrent-starts': (env, options, log) => concurrentStarts(env, options.quick, log),
  'late-decisions': (_env, _options, log) => lateDecisions(log),
  'docker-restart': (_env, options, log) => dockerRestart(options.quick, log),
  'long-waits': (_env, options, log) => longWaits(options.quick, log),
  'terminal-dies': (_env, options, log) => terminalDies(options.quick, log),
  'two-workers': (_env, options, log) => twoWorkers(options.quick, log),
  reset: (_env, options, log) => resets(options.quick, log),
  'keeper-lost': (_env, options, log) => keeperLost(options.quick, log),
  'crossed-probes': (_env, _options, log) => crossedProbes(log),
  'forged-starts': (env, options, log) => forgedStarts(env, options.quick, log),
};

async function main(): Promise<number> {
  let options: ChaosOptions;
  try {
    options = parseChaosOptions(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof ChaosUsageError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 2;
  }
  const log = (line: string) => process.stderr.write(`chaos: ${line}\n`);
  const started = Date.now();
  if (options.lab) return report(options, started, await labExperiments(options, log));
  const env = await ChaosEnv.start(log);
  const interrupted = () => void env.close().finally(() => process.exit(130));
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  const results: ExperimentResult[] = [];
  try {
    for (const name of options.only) {
      log(`${name}${options.quick ? ' (quick)' : ''}`);
      const experimentStarted = Date.now();
      const runner = EXPERIMENT_RUNNERS[name];
      if (!runner) continue;
      const result = await runner(env, options, log).catch((error: unknown): ExperimentResult => ({
        experiment: name,
        runs: [
          failedRun('the experiment', `crashed: ${error instanceof Error ? error.stack : String(error)}`),
        ],
        seconds: (Date.now() - experimentStarted) / 1000,
      }));
      results.push(result);
    }
  } finally {
    await env.close();
  }
  return report(options, started, results);
}

/** The lab's experiments, one after the other, on the lab that is up (scripts/lab/up.sh). */
async function labExperiments(
  options: ChaosOptions,
  log: (line: string) => void,
): Promise<ExperimentResult[]> {
  const results: ExperimentResult[] = [];
  for (const name of options.labOnly) {
    log(`lab ${name}`);
    const started = Date.now();
    results.push(
      await labExperiment(name, log).catch((error: unknown) => ({
        experiment: `lab ${name}`,
        runs: [
          failedRun('the experiment', `crashed: ${error instanceof Error ? error.stack : String(error)}`),
        ],
        seconds: (Date.now() - started) / 1000,
      })),
    );
  }
  return results;
}

function report(options: ChaosOptions, started: number, results: ExperimentResult[]): number {
  const seconds = (Date.now() - started) / 1000;
  if (options.json)
    process.stdout.write(`${JSON.stringify({ quick: options.quick, seconds, results }, null, 2)}\n`);
  else process.stdout.write(`${renderTable(results)}\n\nchaos: ${seconds.toFixed(0)} s in all\n`);
  return allHeld(results) ? 0 : 1;
}

void main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`chaos: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
