import { randomBytes } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { link, mkdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { LineStalledError, takeTurn } from './lock-line';

export interface LockOptions {
  timeoutMs: number;
  pollMs?: number;
}

export class LockTimeoutError extends Error {
  override readonly name = 'LockTimeoutError';
}

interface Holder {
  pid: number;
  token: string;
  since: string;
  /** The PID namespace its pid is a number in (`pid:[inode]`): a container sharing the state has its own. */
  pidNamespace?: string;
  /** When its process started (`/proc/<pid>/stat`'s start time), so a pid reused since is not taken for it. */
  startTicks?: string;
}

/** A process's (or thread's) start time in clock ticks since boot, where /proc tells. */
function startTicks(pid: number | 'self'): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command in parentheses: state is field 3, start time field 22.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** Whether `pid` names a thread of another process (Linux gives threads ids from the same numbers). */
function isThreadOfAnother(pid: number): boolean {
  try {
    const tgid = /^Tgid:\s*(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return tgid !== undefined && Number(tgid) !== pid;
  } catch {
    return false;
  }
}

function ownPidNamespace(): string | undefined {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return undefined;
  }
}

/**
 * A lock file shared by processes on this machine (CLI, worker, node agents). The holder's pid is in the
 * file, so a lock left by a process that died is broken by the next process that wants it. Takers in
 * one process queue for it in order (lock-line.ts). Returns the release function.
 */
export async function acquireLock(
  file: string,
  { timeoutMs, pollMs = 50 }: LockOptions,
): Promise<() => Promise<void>> {
  // In line before the first await: takers are served in the order they called.
  const endTurn = await takeTurn(file, timeoutMs).catch(async (error: unknown) => {
    throw error instanceof LineStalledError ? await timedOut(file, timeoutMs) : error;
  });
  try {
    await mkdir(dirname(file), { recursive: true });
    const release = await acquireFile(file, timeoutMs, pollMs);
    return async () => {
      try {
        await release();
      } finally {
        endTurn(true);
      }
    };
  } catch (error) {
    endTurn(false);
    throw error;
  }
}

/** Takes the file itself: another process may hold it, or may have died holding it. */
async function acquireFile(file: string, timeoutMs: number, pollMs: number): Promise<() => Promise<void>> {
  const me: Holder = {
    pid: process.pid,
    token: randomBytes(8).toString('hex'),
    since: new Date().toISOString(),
    ...(ownPidNamespace() ? { pidNamespace: ownPidNamespace() } : {}),
    ...(startTicks('self') ? { startTicks: startTicks('self') } : {}),
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await tryCreate(file, me)) return () => release(file, me.token);
    const holder = await readHolder(file);
    if (holder && !isAlive(holder)) {
      await breakStaleLock(file, holder);
      continue;
    }
    if (Date.now() >= deadline) throw await timedOut(file, timeoutMs, holder);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

async function timedOut(file: string, timeoutMs: number, holder?: Holder): Promise<LockTimeoutError> {
  const found = holder ?? (await readHolder(file));
  const elsewhere = found && !inOwnPidNamespace(found) ? ' of another PID namespace (a container?)' : '';
  const who = found ? `process ${found.pid}${elsewhere} since ${found.since}` : 'another process';
  return new LockTimeoutError(`${file} is held by ${who}; gave up after ${timeoutMs} ms`);
}

export async function withLock<T>(file: string, options: LockOptions, work: () => Promise<T>): Promise<T> {
  const release = await acquireLock(file, options);
  try {
    return await work();
  } finally {
    await release();
  }
}

/** Links a fully written temp file into place, so the lock file never exists without its holder. */
async function tryCreate(file: string, me: Holder): Promise<boolean> {
  const temp = `${file}.${me.token}.tmp`;
  await writeFile(temp, JSON.stringify(me));
  try {
    await link(temp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(temp, { force: true });
  }
}

async function readHolder(file: string): Promise<Holder | undefined> {
  try {
    const holder = JSON.parse(await readFile(file, 'utf8')) as Partial<Holder>;
    if (holder.pidNamespace !== undefined && typeof holder.pidNamespace !== 'string')
      delete holder.pidNamespace;
    if (holder.startTicks !== undefined && typeof holder.startTicks !== 'string') delete holder.startTicks;
    if (typeof holder.pid === 'number' && typeof holder.token === 'string') return holder as Holder;
    return { pid: -1, token: '', since: 'an unknown time' };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return { pid: -1, token: '', since: 'an unknown time' };
  }
}

function inOwnPidNamespace(holder: Holder): boolean {
  return holder.pidNamespace === undefined || holder.pidNamespace === ownPidNamespace();
}

/**
 * Whether the holder may still run. A pid of another PID namespace names no process here (or another one):
 * such a holder is never taken for dead, as breaking its lock lets two node agents apply one push at once.
 */
function isAlive(holder: Holder): boolean {
  if (!inOwnPidNamespace(holder)) return true;
  const { pid } = holder;
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // Its pid may name another process, or a thread of one, since it died.
  if (isThreadOfAnother(pid)) return false;
  const now = holder.startTicks === undefined ? undefined : startTicks(pid);
  return now === undefined || now === holder.startTicks;
}

/** Removes the lock only if it is still the dead holder's (another process may have broken it first). */
async function breakStaleLock(file: string, stale: Holder): Promise<void> {
  const current = await readHolder(file);
  if (current && current.token === stale.token) await unlink(file).catch(() => undefined);
}

async function release(file: string, token: string): Promise<void> {
  const current = await readHolder(file);
  if (current?.token === token) await unlink(file);
}
