import type { DarkEdgeRun } from './dark-edge';
import { fleetLines } from './fleet-report';
import type { BenchResult } from './result';
import { ratio, summarize, type Summary } from './stats';
import type { ContenderSummary } from './summaries';
import { table } from './table';

const ms = (value: number | undefined) =>
  value === undefined || Number.isNaN(value) ? '-' : `${Math.round(value)}`;
const sec = (value: number | undefined) => (value === undefined ? '-' : `${(value / 1000).toFixed(2)} s`);
const mb = (bytes: number | undefined) => (bytes === undefined ? '-' : `${Math.round(bytes)} MB`);

const spread = (s: Summary | undefined, show: (v: number | undefined) => string) => [
  show(s?.median),
  show(s?.p95),
  s ? String(s.n) : '0',
];

function contenderLines(result: BenchResult): string[] {
  const rows = result.contenders.map((c) => [
    c.contender,
    `${c.ok}/${c.runs}`,
    sec(c.wallMs?.median),
    sec(c.wallMs?.p95),
    sec(c.wallMs?.min),
    sec(c.wallMs?.max),
  ]);
  const ratioList = (ratios: Record<string, number | undefined>) =>
    Object.entries(ratios)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => `${name} ${(value as number).toFixed(2)}`);
  const ratios = ratioList(result.ratios);
  const withoutWait = ratioList(result.ratiosWithoutServedAfterStop);
  const waits = result.contenders
    .filter((c) => c.servedAfterStopMs)
    .map((c) => `${c.contender} ${ms(c.servedAfterStopMs?.median)}`);
  const failures = result.contenders.flatMap((c) => c.failures.map((f) => `  ${c.contender} failed: ${f}`));
  return [
    ...table(['contender', 'ok', 'median', 'p95', 'min', 'max'], rows),
    ...failures,
    '',
    `ratios of medians: ${ratios.join(', ') || '-'}`,
    ...(waits.length > 0
      ? [
          `public port served after the predecessor's stop (the demo successor retries its bind every 0.5 s), ms median: ${waits.join(', ')}`,
          `ratios of medians without that wait: ${withoutWait.join(', ') || '-'}`,
        ]
      : []),
  ];
}

function executorLines(c: ContenderSummary): string[] {
  const e = c.executor;
  if (!e) return [];
  const steps = e.byStep.map((s) => [
    s.step,
    ms(s.wallMs?.median),
    ms(s.activityMs?.median),
    ms(s.timerMs?.median),
    ms(s.overheadMs?.median),
    ms(s.overheadMs?.p95),
  ]);
  const activities = e.activities.map((a) => [
    a.type,
    String(a.callsPerRun),
    ms(a.ms?.median),
    ms(a.ms?.p95),
  ]);
  return [
    '',
    `${c.contender}: per-step overhead median ${ms(e.stepOverheadMs?.median)} ms, p95 ${ms(e.stepOverheadMs?.p95)} ms over ${e.stepOverheadMs?.n ?? 0} steps`,
    ...table(['step (ms, medians)', 'wall', 'in activities', 'timers', 'overhead', 'overhead p95'], steps),
    '',
    ...table(
      ['detection latency (ms)', 'median', 'p95', 'n'],
      [
        ['held: report written -> gate waits', ...spread(e.detection.heldMs, ms)],
        ['healthy: health_status -> gate-apply ok', ...spread(e.detection.healthyMs, ms)],
        ['stable: healthy and window over -> ok', ...spread(e.detection.stableMs, ms)],
        ['dead: a container dies in the window -> gate waits', ...spread(e.detection.deadMs, ms)],
        ['(bench) runbook waits -> decision sent', ...spread(e.decisionLagMs, ms)],
      ],
    ),
    `history per runbook: ${ms(e.historyEvents?.median)} events, ${ms(e.historyBytes?.median)} bytes (medians)`,
    `CPU per runbook (ms, medians): worker ${ms(e.resources.workerOwnMs?.median)} own + ${ms(e.resources.workerChildrenMs?.median)} its ended child processes, Temporal server ${ms(e.resources.temporalCpuMs?.median)}${e.resources.postgresCpuMs ? `, PostgreSQL ${ms(e.resources.postgresCpuMs.median)}` : ''}`,
    ...table(['activity', 'calls/runbook', 'ms median', 'ms p95'], activities),
  ];
}

type Cell = Summary | number | undefined;
type Show = (value: number) => string;

const median = (cell: Cell) => (typeof cell === 'number' ? cell : cell?.median);
const kb = (bytes: number) => (bytes < 10_240 ? `${bytes.toFixed(0)} B` : `${(bytes / 1024).toFixed(0)} KB`);
const n0 = (value: number) => value.toFixed(0);
const n1 = (value: number) => value.toFixed(1);
const x2 = (value: number) => value.toFixed(2);
const s2 = (value: number) => (value / 1000).toFixed(2);

function cell(value: Cell, show: Show, none = '-'): string {
  if (value === undefined || Number.isNaN(median(value))) return none;
  if (typeof value === 'number') return show(value);
  return value.n > 1 ? `${show(value.median)} [${show(value.p95)}]` : show(value.median);
}

/** One figure side by side: the dev server's, the lab's, and lab/dev of their medians. */
function sideBySide(label: string, dev: Cell, lab: Cell, show: Show, devNone = '-'): string[] {
  const a = median(dev);
  const b = median(lab);
  const ratio = a !== undefined && b !== undefined && a > 0 ? x2(b / a) : '';
  return [label, cell(dev, show, devNone), cell(lab, show), ratio];
}

function labLines(result: BenchResult): string[] {
  const of = (name: string) => result.contenders.find((c) => c.contender === name);
  const dev = of('executor');
  const lab = of('lab-executor');
  if (!result.lab || !lab) return [];
  const d = dev?.executor;
  const l = lab.executor;
  const dr = d?.resources;
  const lr = l?.resources;
  const ratio = (name: string) => result.ratios[name];
  const lessWait = (name: string) => result.ratiosWithoutServedAfterStop[name];
  const idle = result.idle;
  const labWorkers = lr?.byWorker ?? [];
  const rows = [
    sideBySide('edge flip through the executor (s)', dev?.wallMs, lab.wallMs, s2),
    sideBySide('edge flip by the shell script (s)', of('shell')?.wallMs, of('lab-shell')?.wallMs, s2),
    sideBySide('executor/shell', ratio('executor/shell'), ratio('lab-executor/lab-shell'), x2),
    sideBySide(
      '  without the wait for the public port',
      lessWait('executor/shell'),
      lessWait('lab-executor/lab-shell'),
      x2,
    ),
    sideBySide('per-step overhead (ms)', d?.stepOverheadMs, l?.stepOverheadMs, n0),
    sideBySide('history events per runbook', d?.historyEvents, l?.historyEvents, n0),
    sideBySide('history bytes per runbook', d?.historyBytes, l?.historyBytes, n0),
    sideBySide('worker CPU per runbook, own threads (ms)', dr?.workerOwnMs, lr?.workerOwnMs, n0),
    sideBySide('  + its child processes that ended (ms)', dr?.workerChildrenMs, lr?.workerChildrenMs, n0),
    ...labWorkers.flatMap((w) => [
      sideBySide(`  ${w.worker}: own`, undefined, w.ownMs, n0, ''),
      sideBySide(`  ${w.worker}: child processes`, undefined, w.childrenMs, n0, ''),
    ]),
    sideBySide('Temporal server CPU per runbook (ms)', dr?.temporalCpuMs, lr?.temporalCpuMs, n0),
    sideBySide('PostgreSQL CPU per runbook (ms)', undefined, lr?.postgresCpuMs, n0, 'SQLite'),
    sideBySide('PostgreSQL WAL per runbook', undefined, lr?.walBytes, kb, 'in memory'),
    sideBySide('PostgreSQL rows written per runbook', undefined, lr?.rows, n0),
    ...(lr?.rowsByDatabase ?? []).map((db) => sideBySide(`  in ${db.database}`, undefined, db.rows, n0)),
    sideBySide('PostgreSQL transactions per runbook (reads too)', undefined, lr?.commits, n0),
    sideBySide(
      'healthy: health_status -> gate-apply ok (ms)',
      d?.detection.healthyMs,
      l?.detection.healthyMs,
      n0,
    ),
    sideBySide('stable: window over -> ok (ms)', d?.detection.stableMs, l?.detection.stableMs, n0),
    sideBySide('(bench) runbook waits -> decision sent (ms)', d?.decisionLagMs, l?.decisionLagMs, n0),
    ...(idle
      ? [
          sideBySide(
            'idle, per second: workers CPU (ms)',
            idle.devServer.workerMsPerS,
            idle.lab.workerMsPerS,
            n1,
          ),
          sideBySide(
            'idle, per second: Temporal CPU (ms)',
            idle.devServer.temporalMsPerS,
            idle.lab.temporalMsPerS,
            n1,
          ),
          sideBySide('idle, per second: PostgreSQL CPU (ms)', undefined, idle.lab.postgresMsPerS, n1),
          sideBySide('idle, per second: PostgreSQL WAL', undefined, idle.lab.walBytesPerS, kb),
          sideBySide('idle, per second: PostgreSQL rows written', undefined, idle.lab.rowsPerS, n1),
          sideBySide('idle, per second: PostgreSQL transactions', undefined, idle.lab.commitsPerS, n1),
        ]
      : []),
  ];
  const workers = labWorkers.map((w) => w.worker).join(' + ');
  return [
    '',
    ...table(['dev server | lab (medians [p95])', 'dev server', 'lab', 'lab/dev'], rows),
    `dev server: the Temporal CLI's (SQLite in memory), one worker process for the shared and the node queues, the local mesh in that process.`,
    `lab: Temporal on PostgreSQL at ${result.lab.temporal} (namespace ${result.lab.namespace}), ${workers || 'its workers'}, mesh through meshctl (one process per verb), the host's own engine; its shell flip runs inside ${result.lab.node}'s network namespace.`,
    `CPU times from /proc/<pid>/stat over the start call to the close (each with what the process does idle, above, over that time); PostgreSQL's (WAL cluster-wide, rows of ${(lr?.rowsByDatabase ?? []).map((db) => db.database).join(' and ') || 'its databases'}) from before the start to at least ${s2(result.lab.pgSettleMs)} s after the close (window median ${s2(lr?.postgresWindowMs?.median ?? Number.NaN)} s), its statistics lagging up to 10 s.`,
  ];
}

function cliLines(result: BenchResult): string[] {
  if (!result.cli) return [];
  const rows = result.cli.map((t) => [t.command, ms(t.ms?.median), ms(t.ms?.p95), t.exitCodes.join(',')]);
  const said = result.cli.filter((t) => t.command.includes('nothing listens') && t.said);
  return [
    '',
    ...table(['CLI, whole process (ms)', 'median', 'p95', 'exit codes'], rows),
    ...said.map((t) => `  nothing listens says: ${t.said}`),
  ];
}

function scaleLines(result: BenchResult): string[] {
  if (result.scale.length === 0) return [];
  const rows = result.scale.map((s) => [
    String(s.runbooks),
    `${s.completed}/${s.runbooks}`,
    sec(s.totalMs),
    sec(s.runbookWallMs?.median),
    `${s.floor.completed}/${s.runbooks}`,
    sec(s.floor.totalMs),
    sec(s.floor.flipMs?.median),
    ms(s.stepOverheadMs?.median),
    ms(s.stepOverheadMs?.p95),
    mb(s.workerPeakRssMb),
  ]);
  return [
    '',
    ...table(
      [
        'runbooks at once',
        'done',
        'total',
        'runbook median',
        'floor done',
        'floor total',
        'floor median',
        'overhead med ms',
        'overhead p95 ms',
        'worker peak',
      ],
      rows,
    ),
    ...result.scale.flatMap((s) => [...s.failures, ...s.floor.failures].map((f) => `  failed: ${f}`)),
    "floor: the same flips by a dockerode script at once on the same machine, right after the executor's",
  ];
}

function darkEdgeLines(result: BenchResult): string[] {
  if (!result.darkEdge) return [];
  const of = (down: boolean, pick: (run: DarkEdgeRun) => number | undefined) =>
    summarize(
      (result.darkEdge ?? []).flatMap((run) => {
        const value = run.controllerDown === down && run.ok ? pick(run) : undefined;
        return value === undefined ? [] : [value];
      }),
    );
  const row = (label: string, pick: (run: DarkEdgeRun) => number | undefined) => {
    const up = of(false, pick);
    const down = of(true, pick);
    return [label, cell(up, n0), cell(down, n0), x2(ratio(down, up) ?? Number.NaN)];
  };
  const failed = result.darkEdge.filter((run) => !run.ok);
  return [
    '',
    ...table(
      ['dark edge (ms, medians [p95])', 'controller answering', 'controller not answering', 'not/answering'],
      [
        row('probe-public failed -> predecessor serves', (run) => run.litAfterFailedProbeMs),
        row('predecessor stopped -> serves again', (run) => run.outageMs),
      ],
    ),
    'dark edge: a successor that never takes the public port; the rollback lights the names before any mesh call, the controller not answering from probe-public on (its lock held).',
    ...failed.map(
      (run) =>
        `dark edge round ${run.round} (controller ${run.controllerDown ? 'down' : 'up'}) FAILED: ${run.failure}`,
    ),
  ];
}

/** The bench's result as readable tables. */
export function renderReport(result: BenchResult): string {
  const o = result.options;
  const load = (l: number[]) => l.map((v) => v.toFixed(1)).join(' ');
  const machine = `${result.machine.cpus} cpus, load ${load(result.machine.loadAtStart)} -> ${load(result.machine.loadAtEnd)}, node ${result.machine.node}`;
  if (o.contenders.length === 0 && !result.cli && !result.darkEdge && result.fleet)
    return [
      `mesh runbook bench: fleets of ${o.fleet.join(', ')} simulated nodes`,
      machine,
      ...fleetLines(result),
    ].join('\n');
  return [
    o.contenders.length > 0
      ? `mesh runbook bench: edge flip, ${o.rounds} round(s) alternating ${o.contenders.join(', ')}${o.warmup ? ' after one warm-up flip' : ', no warm-up'}`
      : result.cli
        ? 'mesh runbook bench: the CLI only, after one edge flip for it to show'
        : `mesh runbook bench: the dark edge only, ${o.rounds} round(s)`,
    machine,
    `executor timings (the runbook's defaults): ${Object.entries(result.timings)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}; shell and floor wait the same stability window from each container's StartedAt`,
    '',
    ...contenderLines(result),
    ...labLines(result),
    ...result.contenders.flatMap(executorLines),
    '',
    `worker RSS: ${mb(result.worker.idleRssMb)} idle after start, ${mb(result.worker.peakRssMb)} peak during the rounds`,
    ...cliLines(result),
    ...scaleLines(result),
    ...darkEdgeLines(result),
    ...fleetLines(result),
    '',
    'the shell flip does:',
    ...result.notes.shellDoes.map((line) => `  - ${line}`),
    'and does not (the executor does):',
    ...result.notes.shellDoesNot.map((line) => `  - ${line}`),
    `overhead attribution: ${result.notes.attribution}`,
  ].join('\n');
}
