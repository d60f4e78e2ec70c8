import { accessSync, constants } from 'node:fs';
import { userInfo } from 'node:os';
import { delimiter, join } from 'node:path';
import type { EphemeralServerExecutable } from '@temporalio/testing';

/** The Temporal CLI to run a dev server with: TEMPORAL_CLI_PATH, else `temporal` on PATH. */
export function findTemporalCli(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates = [
    env.TEMPORAL_CLI_PATH,
    ...(env.PATH ?? '').split(delimiter).map((dir) => (dir === '' ? undefined : join(dir, 'temporal'))),
  ];
  return candidates.find((path): path is string => path !== undefined && isExecutable(path));
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The Temporal server (a Go binary built without cgo) asks for the current user by `$USER` and fails to
 * start without it ("user: Current requires cgo or $USER set"): a CI job or a service may not set it.
 */
export function ensureUserForServer(env: NodeJS.ProcessEnv = process.env): void {
  if (env.USER) return;
  try {
    env.USER = userInfo().username;
  } catch {
    env.USER = 'mesh';
  }
}

/** A local binary when there is one; otherwise the SDK's own download (works only with internet access). */
export function devServerExecutable(env: NodeJS.ProcessEnv = process.env): EphemeralServerExecutable {
  ensureUserForServer(env);
  const path = findTemporalCli(env);
  return path ? { type: 'existing-path', path } : { type: 'cached-download' };
}
