import { readFileSync } from 'node:fs';
import { hostRootFromMesh, type ActivityDeps } from '../activities';
import { resolveRunbookStateDir } from '../activities/data';
import { webhookNotifier } from '../activities/runbook/notifier';
import { ANY_NODE, loadConfig, type MeshConfig } from '../config';
import { dockerResolver } from '../docker/endpoints';
import { CommandMesh } from '../mesh/command/adapter';
import { loadCommandMeshConfig } from '../mesh/command/config';
import { LocalMesh } from '../mesh/local';
import type { MeshPort } from '../mesh/port';

/**
 * The worker's activity dependencies from the effective config (see config/): mesh, Docker, policy,
 * notifier, and its state dir ($MESH_STATE_DIR/runbook, else ~/.local/state/mesh/runbook).
 */
export function depsFromConfig(config: MeshConfig, env: NodeJS.ProcessEnv = process.env): ActivityDeps {
  const { [ANY_NODE]: fallback, ...nodes } = config.nodes;
  const mesh = meshOf(config.mesh);
  return {
    mesh,
    // Node workers use their own host root (worker/node-worker.ts); this answers where none is set.
    hostRootOf: hostRootFromMesh(mesh),
    stateDir: resolveRunbookStateDir(env),
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
  return depsFromConfig(loadConfig({ env }), env);
}

function meshOf(mesh: MeshConfig['mesh']): MeshPort {
  if (mesh.adapter === 'local') return new LocalMesh({ stateDir: mesh.localState });
  const raw: unknown =
    typeof mesh.command === 'string' ? JSON.parse(readFileSync(mesh.command, 'utf8')) : mesh.command;
  return new CommandMesh(loadCommandMeshConfig(raw));
}
