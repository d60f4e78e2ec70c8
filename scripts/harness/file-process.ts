import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Tally } from '../node-test-run';

/** The longest one file may run: past it the file is stopped and counted as failed. */
export const FILE_BOUND_MS = 40 * 60_000;

export interface FileOutcome {
  file: string;
  tally: Tally;
  ms: number;
  stdout: string;
  stderr: string;
  /** Why the file has no tally of its own (it was stopped, or its process failed), if so. */
  broken?: string;
}

const TALLY_REPORTER = join(__dirname, 'tally-reporter.ts');
const running = new Set<number>();

/**
 * Runs one test file in a process of its own and its own process group, under this process's exec
 * arguments (tsx), with `env` on top of this process's environment: node:test's spec reporter on its
 * stdout, kept for the caller to print whole, and its tally (scripts/harness/tally-reporter.ts) in
 * `tallyFile`.
 */
export async function runFileProcess(
  file: string,
  env: NodeJS.ProcessEnv,
  tallyFile: string,
): Promise<FileOutcome> {
  const started = Date.now();
  const reporters = [
    ...['--test-reporter=spec', '--test-reporter-destination=stdout'],
    ...[`--test-reporter=${TALLY_REPORTER}`, `--test-reporter-destination=${tallyFile}`],
  ];
  const child = spawn(process.execPath, [...process.execArgv, ...reporters, file], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  if (child.pid !== undefined) running.add(child.pid);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let stopped = false;
  const bound = setTimeout(() => {
    stopped = true;
    stopGroup(child.pid, 'SIGTERM');
    setTimeout(() => stopGroup(child.pid, 'SIGKILL'), 30_000).unref();
  }, FILE_BOUND_MS);
  const code = await new Promise<number | null>((resolve) => {
    child.once('error', () => resolve(null));
    child.once('close', resolve);
  });
  clearTimeout(bound);
  if (child.pid !== undefined) running.delete(child.pid);
  const ms = Date.now() - started;
  const tally = await readFile(tallyFile, 'utf8').then(
    (text) => (text.trim() ? (JSON.parse(text) as Tally) : undefined),
    () => undefined,
  );
  await rm(tallyFile, { force: true });
  // A failed test makes its process exit 1 and is in the tally; an exit the tally does not explain counts.
  const explained = tally && (code === 0 || tally.failed + tally.cancelled > 0);
  if (tally && explained && !stopped) return { file, tally, ms, stdout, stderr };
  const broken = stopped
    ? `stopped after ${FILE_BOUND_MS / 60_000} minutes`
    : tally
      ? `its test process exited ${code} after its tests passed`
      : `its test process exited ${code} without a tally`;
  const failed: Tally = tally ?? { passed: 0, failed: 0, skipped: 0, todo: 0, cancelled: 0 };
  return { file, tally: { ...failed, failed: failed.failed + 1 }, ms, stdout, stderr, broken };
}

/** Passes the signal the harness was interrupted with to every file still running: its whole process group. */
export function stopAllFiles(signal: NodeJS.Signals): void {
  for (const pid of running) stopGroup(pid, signal);
}

function stopGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}
