import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { RunbookWorld } from './runbook-world';

export const MESH = join(__dirname, '..', '..', 'bin', 'mesh.js');
const run = promisify(execFile);

export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** `mesh runbook <args>` as a subprocess on the world's task queue and local mesh; never throws for an exit code. */
export async function meshRunbook(world: RunbookWorld, ...args: string[]): Promise<CliOutcome> {
  const env = {
    ...process.env,
    MESH_TASK_QUEUE: world.taskQueue,
    MESH_ADAPTER: 'local',
    MESH_LOCAL_STATE: world.stateDir,
  };
  try {
    const { stdout, stderr } = await run(MESH, ['runbook', ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}
