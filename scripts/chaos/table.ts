import type { ExperimentResult } from './result';

const HEADERS = [
  'experiment',
  'runs',
  'passed',
  'runbooks lost',
  'side effects duplicated',
  'wrong proceeds',
  'slowest recovery (s)',
  'time (s)',
];

/** One row per experiment, summed over its runs. */
export function tableRows(results: ExperimentResult[]): string[][] {
  return results.map(({ experiment, runs, seconds }) => {
    const sum = (pick: (run: (typeof runs)[number]) => number) => runs.reduce((n, run) => n + pick(run), 0);
    const recoveries = runs.flatMap((run) => (run.recoveryS === undefined ? [] : [run.recoveryS]));
    return [
      experiment,
      String(runs.length),
      String(runs.filter((run) => run.passed).length),
      String(sum((run) => run.lost)),
      String(sum((run) => run.duplicated)),
      String(sum((run) => run.wrongProceeds)),
      recoveries.length > 0 ? Math.max(...recoveries).toFixed(1) : '-',
      seconds.toFixed(0),
    ];
  });
}

/** The table as aligned text, then every failed run with its notes. */
export function renderTable(results: ExperimentResult[]): string {
  const rows = [HEADERS, ...tableRows(results)];
  const widths = HEADERS.map((_, i) => Math.max(...rows.map((row) => row[i]?.length ?? 0)));
  const line = (row: string[]) =>
    row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ');
  const failures = results.flatMap(({ experiment, runs }) =>
    runs
      .filter((run) => !run.passed)
      .map((run) => `  ${experiment} / ${run.name}: ${run.notes.join('; ') || 'failed'}`),
  );
  return [
    line(rows[0] ?? []),
    ...rows.slice(1).map(line),
    ...(failures.length > 0 ? ['', 'failed runs:', ...failures] : []),
  ].join('\n');
}
