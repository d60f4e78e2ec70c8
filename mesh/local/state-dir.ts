import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export const STATE_DIR_ENV = 'MESH_LOCAL_STATE';

/** The local mesh's state dir: an explicit choice, else $MESH_LOCAL_STATE, else ~/.local/state/mesh/local. */
export function resolveLocalStateDir(
  explicit?: string,
  env: NodeJS.ProcessEnv = process.env,
  home: string = homedir(),
): string {
  const chosen = explicit ?? (env[STATE_DIR_ENV] || undefined);
  return chosen ? resolve(chosen) : join(home, '.local', 'state', 'mesh', 'local');
}
