import { readFileSync } from 'node:fs';
import type { ActivityDeps } from '../activities';
import { dockerResolver } from '../activities/docker/endpoints';
import { CommandMesh } from '../mesh/command/adapter';
import { loadCommandMeshConfig } from '../mesh/command/config';
import { LocalMesh, resolveLocalStateDir } from '../mesh/local';
import type { MeshPort } from '../mesh/port';

/**
 * The worker's dependencies from its environment: MESH_ADAPTER=local (default: the reference mesh in
 * MESH_LOCAL_STATE) or MESH_ADAPTER=command with MESH_COMMAND_CONFIG naming the adapter's JSON config;
 * MESH_DOCKER_ENDPOINTS names a JSON file of per-node Docker endpoints (default: the local socket).
 */
export function depsFromEnv(env: NodeJS.ProcessEnv = process.env): ActivityDeps {
  const endpoints = env.MESH_DOCKER_ENDPOINTS ? readJson(env.MESH_DOCKER_ENDPOINTS) : {};
  return {
    mesh: meshFromEnv(env),
    dockerFor: dockerResolver(endpoints as Parameters<typeof dockerResolver>[0]),
  };
}

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8'));
}

function meshFromEnv(env: NodeJS.ProcessEnv): MeshPort {
  const adapter = env.MESH_ADAPTER || 'local';
  if (adapter === 'local') return new LocalMesh({ stateDir: resolveLocalStateDir(undefined, env) });
  if (adapter === 'command') {
    const path = env.MESH_COMMAND_CONFIG;
    if (!path)
      throw new Error('MESH_ADAPTER=command needs MESH_COMMAND_CONFIG, the path of the adapter config');
    return new CommandMesh(loadCommandMeshConfig(readJson(path)));
  }
  throw new Error(`MESH_ADAPTER must be local or command, not ${adapter}`);
}
