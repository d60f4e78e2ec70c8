import type { ContenderRun } from './contenders';
import type { ExecutorRun } from './executor';
import type { ContenderName } from './options';
import { workersCpu } from './resources';
import { summarize, type Summary } from './stats';

export interface StepSummary {
  step: string;
  wallMs: Summary | undefined;
  activityMs: Summary | undefined;
  timerMs: Summary | undefined;
  overheadMs: Summary | undefined;
}

/** What the runs cost beyond their wall time (RunResources), per runbook. */
export interface ResourceSummary {
  /** The workers together: their own threads, and the child processes they waited for (the lab's meshctl). */
  workerOwnMs: Summary | undefined;
  workerChildrenMs: Summary | undefined;
  /** Each worker process: its own threads and its ended children. */
  byWorker: { worker: string; ownMs: Summary | undefined; childrenMs: Summary | undefined }[];
  temporalCpuMs: Summary | undefined;
  postgresCpuMs: Summary | undefined;
  walBytes: Summary | undefined;
  /** Rows inserted, updated and deleted, in every database and in each. */
  rows: Summary | undefined;
  rowsByDatabase: { database: string; rows: Summary | undefined }[];
  commits: Summary | undefined;
  /** How long the windows PostgreSQL's figures were read over lasted (the run and the settling pause). */
  postgresWindowMs: Summary | undefined;
}

/** What the executor's completed runs tell beyond their wall time. */
export interface ExecutorSummary {
  /** Every step of every completed run is one sample. */
  stepOverheadMs: Summary | undefined;
  byStep: StepSummary[];
  detection: {
    heldMs: Summary | undefined;
    healthyMs: Summary | undefined;
    stableMs: Summary | undefined;
    deadMs: Summary | undefined;
  };
  /** The bench's own share of the wall time: the runbook waiting (waiting.since) → the decision sent. */
  decisionLagMs: Summary | undefined;
  historyEvents: Summary | undefined;
  historyBytes: Summary | undefined;
  /** Per activity type: calls per runbook (median) and each call's duration. */
  activities: { type: string; callsPerRun: number; ms: Summary | undefined }[];
  resources: ResourceSummary;
}

export interface ContenderSummary {
  contender: ContenderName;
  runs: number;
  ok: number;
  wallMs: Summary | undefined;
  /** The public port served after the predecessor stopped (see TimedFlip), and the wall time without it. */
  servedAfterStopMs: Summary | undefined;
  wallWithoutServedAfterStopMs: Summary | undefined;
  failures: string[];
  executor?: ExecutorSummary;
}

const defined = <T>(values: (T | undefined)[]): T[] => values.filter((v): v is T => v !== undefined);

function stepSummaries(runs: ExecutorRun[]): StepSummary[] {
  const names = [...new Set(runs.flatMap((run) => run.steps.map((s) => s.step)))];
  return names.map((step) => {
    const samples = runs.flatMap((run) => run.steps.filter((s) => s.step === step));
    return {
      step,
      wallMs: summarize(samples.map((s) => s.wallMs)),
      activityMs: summarize(samples.map((s) => s.activityMs)),
      timerMs: summarize(samples.map((s) => s.timerMs)),
      overheadMs: summarize(samples.map((s) => s.overheadMs)),
    };
  });
}

function activitySummaries(runs: ExecutorRun[]): ExecutorSummary['activities'] {
  const types = [...new Set(runs.flatMap((run) => run.activities.map((a) => a.type)))].sort();
  return types.map((type) => {
    const perRun = runs.map((run) => run.activities.filter((a) => a.type === type));
    return {
      type,
      callsPerRun: summarize(perRun.map((calls) => calls.length))?.median ?? 0,
      ms: summarize(perRun.flat().map((a) => a.ms)),
    };
  });
}

function resourceSummary(runs: ExecutorRun[]): ResourceSummary {
  const metered = defined(runs.map((run) => run.resources));
  const workers = defined(metered.map(workersCpu));
  const written = defined(metered.map((r) => r.postgres));
  const names = [...new Set(metered.flatMap((r) => Object.keys(r.workers)))];
  const databases = [...new Set(written.flatMap((w) => Object.keys(w.databases)))];
  return {
    workerOwnMs: summarize(workers.map((w) => w.ownMs)),
    workerChildrenMs: summarize(workers.map((w) => w.childrenMs)),
    byWorker: names.map((worker) => {
      const used = defined(metered.map((r) => r.workers[worker]));
      return {
        worker,
        ownMs: summarize(used.map((u) => u.ownMs)),
        childrenMs: summarize(used.map((u) => u.childrenMs)),
      };
    }),
    temporalCpuMs: summarize(defined(metered.map((r) => r.temporalCpuMs))),
    postgresCpuMs: summarize(defined(metered.map((r) => r.postgresCpuMs))),
    walBytes: summarize(written.map((w) => w.walBytes)),
    rows: summarize(written.map((w) => w.rows)),
    rowsByDatabase: databases.map((database) => ({
      database,
      rows: summarize(
        defined(written.map((w) => w.databases[database])).map((d) => d.inserted + d.updated + d.deleted),
      ),
    })),
    commits: summarize(written.map((w) => w.commits)),
    postgresWindowMs: summarize(written.map((w) => w.windowMs)),
  };
}

function executorSummary(runs: ExecutorRun[]): ExecutorSummary {
  return {
    stepOverheadMs: summarize(runs.flatMap((run) => run.steps.map((s) => s.overheadMs))),
    byStep: stepSummaries(runs),
    detection: {
      heldMs: summarize(defined(runs.map((run) => run.detection.heldMs))),
      healthyMs: summarize(defined(runs.map((run) => run.detection.healthyMs))),
      stableMs: summarize(defined(runs.map((run) => run.detection.stableMs))),
      deadMs: summarize(defined(runs.map((run) => run.detection.deadMs))),
    },
    decisionLagMs: summarize(runs.flatMap((run) => run.waits.map((w) => w.decidedAt - w.since))),
    historyEvents: summarize(runs.map((run) => run.history.events)),
    historyBytes: summarize(runs.map((run) => run.history.bytes)),
    activities: activitySummaries(runs),
    resources: resourceSummary(runs),
  };
}

/** Medians and p95 of each contender's successful runs; the executor's details from its completed runs. */
export function summarizeContender(contender: ContenderName, runs: ContenderRun[]): ContenderSummary {
  const mine = runs.filter((run) => run.contender === contender);
  const ok = mine.filter((run) => run.ok);
  const executorRuns = defined(ok.map((run) => run.executor));
  return {
    contender,
    runs: mine.length,
    ok: ok.length,
    wallMs: summarize(ok.map((run) => run.wallMs)),
    servedAfterStopMs: summarize(defined(ok.map((run) => run.servedAfterStopMs))),
    wallWithoutServedAfterStopMs: summarize(
      defined(
        ok.map((run) =>
          run.servedAfterStopMs === undefined ? undefined : run.wallMs - run.servedAfterStopMs,
        ),
      ),
    ),
    failures: defined(mine.map((run) => run.failure)),
    ...(contender.includes('executor') ? { executor: executorSummary(executorRuns) } : {}),
  };
}
