import { accessSync, constants } from 'node:fs';
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

/** A local binary when there is one; otherwise the SDK's own download (works only with internet access). */
export function devServerExecutable(env: NodeJS.ProcessEnv = process.env): EphemeralServerExecutable {
  const path = findTemporalCli(env);
  return path ? { type: 'existing-path', path } : { type: 'cached-download' };
}
