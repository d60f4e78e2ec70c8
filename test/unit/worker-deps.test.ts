import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { resolveRunbookStateDir } from '../../activities/data';
import { depsFromEnv } from '../../worker/deps';

describe('worker dependencies from the environment', () => {
  const made: string[] = [];
  after(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));

  async function endpointsFile(content: unknown): Promise<Record<string, string>> {
    const dir = await mkdtemp(join(tmpdir(), 'mesh-deps-'));
    made.push(dir);
    await writeFile(join(dir, 'endpoints.json'), JSON.stringify(content));
    return { MESH_LOCAL_STATE: join(dir, 'state'), MESH_DOCKER_ENDPOINTS: join(dir, 'endpoints.json') };
  }

  const socketOf = (deps: ReturnType<typeof depsFromEnv>, node: string) =>
    (deps.dockerFor(node).docker.modem as unknown as { socketPath?: string }).socketPath;

  it('reaches each node through the Docker endpoint MESH_DOCKER_ENDPOINTS names, others by default', async () => {
    const env = await endpointsFile({ nodes: { edge2: { socket: '/run/edge2/docker.sock' } } });
    const deps = depsFromEnv(env);
    assert.equal(socketOf(deps, 'edge2'), '/run/edge2/docker.sock');
    assert.equal(socketOf(deps, 'novox'), '/var/run/docker.sock');
  });

  it('keeps its own state (catch-up baselines) under $MESH_STATE_DIR/runbook, else ~/.local/state/mesh/runbook', async () => {
    const env = await endpointsFile({});
    assert.equal(depsFromEnv({ ...env, MESH_STATE_DIR: '/var/lib/mesh' }).stateDir, '/var/lib/mesh/runbook');
    assert.equal(resolveRunbookStateDir({}, '/home/o'), '/home/o/.local/state/mesh/runbook');
  });

  it('refuses an endpoints file that does not fit the schema', async () => {
    const env = await endpointsFile({ nodes: { edge2: { socket: 'relative.sock' } } });
    assert.throws(() => depsFromEnv(env), /edge2/);
  });
});
