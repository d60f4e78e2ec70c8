import { readFileSync } from 'node:fs';
import type { ActivityDeps } from '../activities';
import { webhookNotifier } from '../activities/runbook/notifier';
import { ANY_NODE, loadConfig, type MeshConfig } from '../config';
import { dockerResolver } from '../docker/endpoints';
import { CommandMesh } from '../mesh/command/adapter';
import { loadCommandMeshConfig } from '../mesh/command/config';
import { LocalMesh } from '../mesh/local';
import type { MeshPort } from '../mesh/port';

/** The worker's activity dependencies from the effective config (see config/): mesh, Docker, policy, notifier. */
export function depsFromConfig(config: MeshConfig): ActivityDeps {
  const { [ANY_NODE]: fallback, ...nodes } = config.nodes;
  return {
    mesh: meshOf(config.mesh),
    dockerFor: dockerResolver({ ...(fallback ? { default: fallback } : {}), nodes }),
    policy: config.policy,
    ...(config.notifier ? { notifier: webhookNotifier(config.notifier.webhook) } : {}),
  };
}

/**
 * The same from a process environment: MESH_CONFIG names the config file (none: the environment alone);
 * MESH_ADAPTER, MESH_COMMAND_CONFIG, MESH_LOCAL_STATE and MESH_DOCKER_ENDPOINTS override it.
 */
export function depsFromEnv(env: NodeJS.ProcessEnv = process.env): ActivityDeps {
  return depsFromConfig(loadConfig({ env }));
}

function meshOf(mesh: MeshConfig['mesh']): MeshPort {
  if (mesh.adapter === 'local') return new LocalMesh({ stateDir: mesh.localState });
  const raw: unknown =
    typeof mesh.command === 'string' ? JSON.parse(readFileSync(mesh.command, 'utf8')) : mesh.command;
  return new CommandMesh(loadCommandMeshConfig(raw));
}
