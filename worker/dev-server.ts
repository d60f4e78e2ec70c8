import { spawn, type ChildProcess } from 'node:child_process';
import { ensureUserForServer } from './temporal-binary';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { searchAttributeFlags } from '../workflows/search-attributes';
import { QUEUE_READ_ARGS, SQLITE_FILE_ARGS } from './dev-server-tuning';

/**
 * A Temporal dev server for `mesh runbook dev`: `temporal server start-dev` spawned directly, on a fixed
 * port, with its SQLite file in the state dir so runbooks survive a restart. Spawned in its own process
 * group, so Ctrl-C reaches only the CLI, which stops the worker first and the server last.
 */
export interface DevServerOptions {
  /** The Temporal CLI binary (findTemporalCli()). */
  cli: string;
  stateDir: string;
  ip: string;
  port: number;
  uiPort: number;
  namespace: string;
  readyTimeoutMs?: number;
}

export interface DevServer {
  address: string;
  uiUrl: string;
  dbFile: string;
  logFile: string;
  pid: number;
  /** SIGTERM (the server flushes and closes its database), SIGKILL if it has not exited after 15 s. */
  stop(): Promise<void>;
}

export const DB_FILE = 'temporal.db';
export const LOG_FILE = 'temporal.log';
export const PID_FILE = 'temporal.pid';

/** Whether something accepts connections on the port already. */
export function portInUse(ip: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: ip, port });
    socket.setTimeout(1_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * What the pid file of a state dir says still runs: the Temporal server, and whether the `mesh runbook dev`
 * that started it is alive (then it is in use) or gone (then its server was left behind).
 */
export function recordedServer(stateDir: string): { serverPid: number; ownerAlive: boolean } | undefined {
  const file = join(stateDir, PID_FILE);
  if (!existsSync(file)) return undefined;
  const [serverPid, ownerPid] = readFileSync(file, 'utf8').trim().split(/\s+/).map(Number);
  if (!serverPid || !Number.isInteger(serverPid) || !alive(serverPid)) return undefined;
  return { serverPid, ownerAlive: ownerPid !== undefined && Number.isInteger(ownerPid) && alive(ownerPid) };
}

export function devServerArgs(options: DevServerOptions): string[] {
  const args = [
    'server',
    'start-dev',
    '--ip',
    options.ip,
    '--port',
    String(options.port),
    '--ui-port',
    String(options.uiPort),
    '--db-filename',
    join(options.stateDir, DB_FILE),
    ...SQLITE_FILE_ARGS,
    ...QUEUE_READ_ARGS,
    '--log-level',
    'warn',
    ...searchAttributeFlags(),
  ];
  if (options.namespace !== 'default') args.push('--namespace', options.namespace);
  return args;
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.once('error', () => resolve());
      });
}

function logTail(logFile: string, lines = 15): string {
  try {
    return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** Starts the server and resolves once its frontend answers for the namespace; `signal` aborts the wait. */
export async function startDevServer(options: DevServerOptions, signal: AbortSignal): Promise<DevServer> {
  mkdirSync(options.stateDir, { recursive: true });
  const logFile = join(options.stateDir, LOG_FILE);
  const pidFile = join(options.stateDir, PID_FILE);
  const log = openSync(logFile, 'a');
  writeFileSync(log, `--- mesh runbook dev: ${new Date().toISOString()} ---\n`);
  ensureUserForServer();
  const child = spawn(options.cli, devServerArgs(options), { detached: true, stdio: ['ignore', log, log] });
  closeSync(log);
  let spawnError: Error | undefined;
  child.once('error', (error) => (spawnError = error));
  const address = `${options.ip}:${options.port}`;
  const done = exited(child);
  let exitedEarly = false;
  void done.then(() => (exitedEarly = true));
  const pid = child.pid ?? 0;
  writeFileSync(pidFile, `${pid} ${process.pid}\n`);

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killed = await Promise.race([done.then(() => true), delay(15_000).then(() => false)]);
      if (!killed) child.kill('SIGKILL');
      await done;
    }
    rmSync(pidFile, { force: true });
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  for (;;) {
    if (signal.aborted) {
      await stop();
      throw new Error('stopped before the Temporal dev server was ready');
    }
    if (exitedEarly) {
      rmSync(pidFile, { force: true });
      throw new Error(
        spawnError
          ? `Cannot run ${options.cli}: ${spawnError.message}.`
          : `The Temporal dev server exited (code ${child.exitCode ?? child.signalCode}) before it was ready; its log ${logFile} ends with:\n${logTail(logFile)}`,
      );
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(
        `The Temporal dev server did not answer on ${address} in time; see its log ${logFile}.`,
      );
    }
    if (await answers(address, options.namespace)) break;
    await delay(250);
  }
  return {
    address,
    uiUrl: `http://${options.ip}:${options.uiPort}`,
    dbFile: join(options.stateDir, DB_FILE),
    logFile,
    pid,
    stop,
  };
}

async function answers(address: string, namespace: string): Promise<boolean> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: 1_000 });
    await connection.workflowService.describeNamespace({ namespace });
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close().catch(() => undefined);
  }
}
