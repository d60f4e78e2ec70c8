import { spawn } from 'node:child_process';
import { MeshCommandError } from '../errors';
import { describeArgv, type Argv } from './argv';

export interface MeshCall extends Argv {
  timeoutMs: number;
  /** The child's whole environment (./environment.ts); nothing else of this process's is passed. */
  env: Record<string, string>;
  /** Cancels the call: the child is killed and the call fails at once with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Called every few seconds while the child runs (an activity's heartbeat). */
  onStillRunning?: (() => void) | undefined;
}

export interface MeshCommandOutput {
  stdout: string;
  stderr: string;
}

const KILL_GRACE_MS = 2_000;
const STILL_RUNNING_EVERY_MS = 3_000;
const MAX_OUTPUT_BYTES = 32 * 1024 * 1024;
const STDERR_LINES_IN_MESSAGE = 5;

/** The first non-empty lines of stderr, for a one-look error message. */
export function firstLines(text: string, count = STDERR_LINES_IN_MESSAGE): string {
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '')
    .slice(0, count)
    .join('\n');
}

/**
 * Runs one controller command without a shell. Resolves with its output when it exits 0; otherwise
 * throws MeshCommandError with the command, exit code and the start of stderr. A call that outlives its
 * timeout, or is cancelled, is sent SIGTERM, then SIGKILL; a cancelled call fails at once, without waiting
 * for the child to go.
 */
export function runMeshCommand(call: MeshCall): Promise<MeshCommandOutput> {
  const described = describeArgv(call);
  return new Promise((resolve, reject) => {
    if (call.signal?.aborted) return reject(cancellation(call.signal, described));
    const child = spawn(call.command, call.args, {
      shell: false,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: call.env,
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let outputBytes = 0;
    let failure: string | undefined;
    let killTimer: NodeJS.Timeout | undefined;

    const stop = (why: string): void => {
      failure ??= why;
      child.kill('SIGTERM');
      killTimer ??= setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
      // A descendant holding the pipes open must not keep the call waiting.
      child.stdout.destroy();
      child.stderr.destroy();
    };
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      outputBytes += chunk.length;
      if (outputBytes > MAX_OUTPUT_BYTES) stop(`printed more than ${MAX_OUTPUT_BYTES} bytes`);
      else into.push(chunk);
    };
    child.stdout.on('data', collect(stdout));
    child.stderr.on('data', collect(stderr));
    const timeout = setTimeout(() => stop(`timed out after ${call.timeoutMs} ms`), call.timeoutMs);
    const stillRunning = call.onStillRunning && setInterval(call.onStillRunning, STILL_RUNNING_EVERY_MS);
    const onAbort = () => {
      stop('was cancelled');
      if (call.signal) reject(cancellation(call.signal, described));
    };
    call.signal?.addEventListener('abort', onAbort, { once: true });
    const settled = () => {
      clearTimeout(timeout);
      clearInterval(stillRunning);
      call.signal?.removeEventListener('abort', onAbort);
    };

    child.on('error', (error) => {
      settled();
      clearTimeout(killTimer);
      reject(new MeshCommandError(`mesh command \`${described}\` could not run: ${error.message}`, null, ''));
    });
    child.on('close', (code, signal) => {
      settled();
      clearTimeout(killTimer);
      const errText = Buffer.concat(stderr).toString('utf8');
      if (failure === undefined && code === 0) {
        resolve({ stdout: Buffer.concat(stdout).toString('utf8'), stderr: errText });
        return;
      }
      const what =
        failure ?? (code === null ? `was killed by ${signal ?? 'a signal'}` : `exited with code ${code}`);
      const head = firstLines(errText);
      const message = `mesh command \`${described}\` ${what}${head === '' ? ' and printed nothing on stderr' : `:\n${head}`}`;
      reject(new MeshCommandError(message, code, errText));
    });
  });
}

/** The abort's own reason (an activity's CancelledFailure, so the activity ends cancelled), else a sentence. */
function cancellation(signal: AbortSignal, described: string): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return new MeshCommandError(`mesh command \`${described}\` was cancelled`, null, '');
}
