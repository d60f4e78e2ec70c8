import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * Docker Compose for test/integration/compose.test.ts: the real Compose v2 (scripts/compose-install.sh
 * builds it from its Go module when missing), the local images (scripts/compose-local-images.sh), and
 * `docker compose` runs that return their outcome instead of throwing, each with its duration.
 */
export const ROOT = join(__dirname, '..', '..');
export const PRODUCTION_FILE = join(ROOT, 'docker-compose.yml');
export const LOCAL_FILE = join(ROOT, 'deploy', 'local', 'compose.yml');
export const EXAMPLE_ENV = join(ROOT, 'deploy', 'compose.env.example');

const run = promisify(execFile);

export interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
  seconds: number;
}

/** Runs a program to its end (never throws for a non-zero exit); 64 MiB of output at most. */
export async function runProgram(
  program: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<Outcome> {
  const started = Date.now();
  const seconds = () => Number(((Date.now() - started) / 1000).toFixed(1));
  try {
    const { stdout, stderr } = await run(program, args, {
      cwd: ROOT,
      env: options.env ?? process.env,
      timeout: options.timeoutMs ?? 600_000,
      maxBuffer: 64 << 20,
    });
    return { code: 0, stdout, stderr, seconds: seconds() };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string };
    const code = typeof failed.code === 'number' ? failed.code : 1;
    return { code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? String(error), seconds: seconds() };
  }
}

/** Fails with the program's own words when it did not exit 0. */
export function succeeded(outcome: Outcome, what: string): Outcome {
  if (outcome.code !== 0)
    throw new Error(`${what} failed (exit ${outcome.code}):\n${outcome.stderr || outcome.stdout}`);
  return outcome;
}

/** Makes sure `docker compose` answers: built from the Go module proxy when missing (minutes, once). */
export async function ensureCompose(): Promise<Outcome> {
  return succeeded(
    await runProgram('bash', [join(ROOT, 'scripts', 'compose-install.sh')], { timeoutMs: 20 * 60_000 }),
    'scripts/compose-install.sh',
  );
}

export interface LocalImages {
  base: string;
  temporal: string;
  outcome: Outcome;
}

/** The worker's base (with this lockfile's dependencies) and the Temporal dev-server image, made here. */
export async function localImages(): Promise<LocalImages> {
  const outcome = succeeded(
    await runProgram('bash', [join(ROOT, 'scripts', 'compose-local-images.sh')], { timeoutMs: 15 * 60_000 }),
    'scripts/compose-local-images.sh',
  );
  const value = (key: string) => {
    const match = new RegExp(`^${key}=(\\S+)$`, 'm').exec(outcome.stdout);
    if (!match?.[1]) throw new Error(`compose-local-images.sh printed no ${key}:\n${outcome.stdout}`);
    return match[1];
  };
  return { base: value('BASE_IMAGE'), temporal: value('TEMPORAL_IMAGE'), outcome };
}

/** `docker compose -f <file> [-p project] ...` with `env` on top of this process's environment. */
export function compose(
  file: string,
  args: string[],
  options: { project?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<Outcome> {
  const project = options.project ? ['-p', options.project] : [];
  return runProgram('docker', ['compose', '-f', file, ...project, ...args], {
    env: { ...process.env, ...options.env },
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  });
}

/** One line for the test log, so a run's output shows what each part took. */
export function timing(what: string, seconds: number): void {
  process.stdout.write(`# compose timing: ${what} ${seconds.toFixed(1)}s\n`);
}
