import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freeLocalPort } from '../../worker/ports';
import type { BenchEnv } from './bench-env';
import type { TimedFlip } from './contenders';

const run = promisify(execFile);
const SCRIPT = join(__dirname, 'shell-edge-flip.sh');

/** What the shell flip checks, and what the executor does that it does not: printed with the figures. */
export const SHELL_CHECKS = {
  does: [
    'preflight: predecessor runs and serves every name, no successor container yet',
    'starts the 3 successor containers (in parallel), checks their mount sources',
    'waits until the edge is healthy (exited/unhealthy fails)',
    'stability window: every container up >= the window since its StartedAt, restart count unchanged',
    'probes every name on the staging port (successor marker), stops the predecessor',
    'probes the public port until the successor answers, removes the predecessor, re-checks the successor',
  ],
  doesNot: [
    "mesh bookkeeping: assign/unassign, two pushes, the node agent's apply, its report and holds",
    'sent == applied, spec-hash drift, the held/drift/unreadable verdicts',
    'inspects again in verify-successor, recheck-successor (after the approval) and gate-clean',
    'a durable history, evidence hashes, an approval and its four-eyes check, compensation on failure',
  ],
};

export interface ShellFlip {
  node: string;
  env: NodeJS.ProcessEnv;
  /** What the script runs under (e.g. `nsenter --net=...` for a lab host); nothing on the dev server's side. */
  under: string[];
}

type Stage = 'setup' | 'flip' | 'cleanup';

function script(flip: ShellFlip, stage: Stage) {
  const [command = 'bash', ...args] = [...flip.under, 'bash', SCRIPT, stage];
  return run(command, args, { env: flip.env });
}

/** Starts the predecessor the script's way (not timed) and returns what `flip` needs. */
export async function setUpShellFlip(env: BenchEnv, windowMs: number): Promise<ShellFlip> {
  const node = env.newNode('sh');
  return setUpScriptFlip({
    node,
    under: [],
    env: {
      ...process.env,
      SF_NODE: node,
      SF_PUBLIC_PORT: String(await freeLocalPort()),
      SF_STAGING_PORT: String(await freeLocalPort()),
      SF_DIR: join(await env.dir('shell-'), 'data'),
      SF_WINDOW_MS: String(windowMs),
    },
  });
}

/** Runs the script's `setup` for a flip described elsewhere (a lab host's); returns it. */
export async function setUpScriptFlip(flip: ShellFlip): Promise<ShellFlip> {
  await script(flip, 'setup');
  return flip;
}

/** The timed part: the whole `flip` process, bash start-up included. Throws when the script fails. */
export async function flipByShell(flip: ShellFlip): Promise<TimedFlip> {
  const started = Date.now();
  const { stdout } = await script(flip, 'flip');
  const wallMs = Date.now() - started;
  const servedAfterStop = /^served-after-stop-ms (\d+)$/m.exec(stdout)?.[1];
  return { wallMs, ...(servedAfterStop !== undefined ? { servedAfterStopMs: Number(servedAfterStop) } : {}) };
}

export async function cleanUpShellFlip(flip: ShellFlip): Promise<void> {
  await script(flip, 'cleanup');
}
