import { statSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** Each file's time in its last run, kept in the state dir: the harness starts the longest files first. */
const TIMES_FILE = join(
  process.env.MESH_STATE_DIR ?? join(homedir(), '.local', 'state', 'mesh'),
  'test-times.json',
);

/**
 * A file never timed yet counts by its size (about 6 ms of run per byte of test code, the median of this
 * suite's integration files), so on a fresh machine the large files, which are the long ones, go first.
 */
const MS_PER_BYTE = 6;

export type Times = Record<string, number>;

export async function loadTimes(): Promise<Times> {
  return readFile(TIMES_FILE, 'utf8').then(
    (text) => JSON.parse(text) as Times,
    () => ({}),
  );
}

export async function saveTimes(before: Times, measured: { file: string; ms: number }[]): Promise<void> {
  const times = { ...before };
  for (const { file, ms } of measured) times[file] = ms;
  await mkdir(dirname(TIMES_FILE), { recursive: true });
  await writeFile(TIMES_FILE, `${JSON.stringify(times, null, 1)}\n`);
}

export function expectedMs(file: string, times: Times): number {
  return times[file] ?? statSync(file).size * MS_PER_BYTE;
}

/** The `count` slowest files, one line each, for the end of the run. */
export function slowestLines(measured: { file: string; ms: number }[], count: number): string[] {
  return [...measured]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, count)
    .map(({ file, ms }) => `${(ms / 1000).toFixed(1).padStart(8)}s  ${file}`);
}
