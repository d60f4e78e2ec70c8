import type { BenchResult } from './result';
import type { Summary } from './stats';
import type { ContenderSummary } from './summaries';

const ms = (value: number | undefined) =>
  value === undefined || Number.isNaN(value) ? '-' : `${Math.round(value)}`;
const sec = (value: number | undefined) => (value === undefined ? '-' : `${(value / 1000).toFixed(2)} s`);
const mb = (bytes: number | undefined) => (bytes === undefined ? '-' : `${Math.round(bytes)} MB`);

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  return [line(header), ...rows.map(line)];
}

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
    ...table(['activity', 'calls/runbook', 'ms median', 'ms p95'], activities),
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

/** The bench's result as readable tables. */
export function renderReport(result: BenchResult): string {
  const o = result.options;
  const load = (l: number[]) => l.map((v) => v.toFixed(1)).join(' ');
  return [
    o.contenders.length > 0
      ? `mesh runbook bench: edge flip, ${o.rounds} round(s) alternating ${o.contenders.join(', ')}${o.warmup ? ' after one warm-up flip' : ', no warm-up'}`
      : 'mesh runbook bench: the CLI only, after one edge flip for it to show',
    `${result.machine.cpus} cpus, load ${load(result.machine.loadAtStart)} -> ${load(result.machine.loadAtEnd)}, node ${result.machine.node}`,
    `executor timings (the runbook's defaults): ${Object.entries(result.timings)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}; shell and floor wait the same stability window from each container's StartedAt`,
    '',
    ...contenderLines(result),
    ...result.contenders.flatMap(executorLines),
    '',
    `worker RSS: ${mb(result.worker.idleRssMb)} idle after start, ${mb(result.worker.peakRssMb)} peak during the rounds`,
    ...cliLines(result),
    ...scaleLines(result),
    '',
    'the shell flip does:',
    ...result.notes.shellDoes.map((line) => `  - ${line}`),
    'and does not (the executor does):',
    ...result.notes.shellDoesNot.map((line) => `  - ${line}`),
    `overhead attribution: ${result.notes.attribution}`,
  ].join('\n');
}
