import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { RunbookStatus } from '../../workflows/contracts';
import { MESH_SEARCH_ATTRIBUTES, searchAttributeTypeName } from '../../workflows/search-attributes';
import {
  compose,
  ensureCompose,
  EXAMPLE_ENV,
  localImages,
  LOCAL_FILE,
  PRODUCTION_FILE,
  ROOT,
  runProgram,
  succeeded,
  timing,
  type LocalImages,
} from '../support/compose';
import { FROM, seedForge, TO } from '../support/data-move';
import { LocalWorld } from '../support/local-world';
import { freePort } from '../support/runbooks';

/**
 * docker-compose.yml where no container registry answers: the real Compose v2 validates it (and refuses
 * it without the secret from .env); then deploy/local/compose.yml runs the same worker image, built by
 * Compose from ./Dockerfile on a locally made base, against a Temporal dev server in a container, and the
 * worker container moves a module's data on the local mesh to completion, driven by the host's CLI.
 */

const MESH = join(ROOT, 'bin', 'mesh.js');
const SETUP_NAMESPACE = join(ROOT, 'deploy', 'temporal', 'setup-namespace.sh');
const WAIT_MS = 180_000;

interface ComposeService {
  image?: string;
  build?: { context: string; args?: Record<string, string> };
  restart?: string;
  init?: boolean;
  healthcheck?: { test: string[] };
  environment?: Record<string, string | null>;
  volumes?: { type: string; source: string; target: string; read_only?: boolean }[];
  depends_on?: Record<string, { condition: string }>;
  networks?: Record<string, unknown>;
  ports?: { target: number; published: string; host_ip: string }[];
}

interface ComposeModel {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
  networks?: Record<string, { internal?: boolean }>;
}

/** The search attributes deploy/temporal/setup-namespace.sh registers. */
async function scriptedSearchAttributes(): Promise<string[]> {
  const script = await readFile(SETUP_NAMESPACE, 'utf8');
  const match = /^SEARCH_ATTRIBUTES="([^"]*)"$/m.exec(script);
  assert.ok(match?.[1], 'setup-namespace.sh lists SEARCH_ATTRIBUTES');
  return match[1].split(/\s+/).filter(Boolean);
}

/** The scripted `Name=Type` pairs, as [name, type]. */
async function scriptedNamesAndTypes(): Promise<[string, string][]> {
  return (await scriptedSearchAttributes()).map((pair) => {
    const [name = '', type = ''] = pair.split('=');
    return [name, type];
  });
}

describe('docker-compose.yml, validated by Docker Compose v2', () => {
  let model: ComposeModel;

  before(async () => {
    const install = await ensureCompose();
    timing(`compose install (${install.stdout.trim()})`, install.seconds);
    const config = succeeded(
      await compose(PRODUCTION_FILE, ['--env-file', EXAMPLE_ENV, 'config', '--format', 'json']),
      'docker compose config',
    );
    model = JSON.parse(config.stdout) as ComposeModel;
  });

  it('has Temporal on PostgreSQL, its Web UI, the one-shot setups and the worker, each health-checked or one-shot', () => {
    const services = model.services;
    assert.deepEqual(Object.keys(services).sort(), [
      'postgresql',
      'temporal',
      'temporal-schema',
      'temporal-setup',
      'temporal-ui',
      'worker',
    ]);
    for (const name of ['postgresql', 'temporal', 'temporal-ui'])
      assert.ok(services[name]?.healthcheck?.test.length, `${name} has a health check`);
    for (const name of ['postgresql', 'temporal', 'temporal-ui', 'worker'])
      assert.equal(services[name]?.restart, 'unless-stopped', `${name} restarts`);
    for (const name of ['temporal-schema', 'temporal-setup'])
      assert.match(services[name]?.restart ?? '', /^on-failure:\d+$/, `${name} is a one-shot`);
    assert.equal(services['temporal-setup']?.image, services['temporal-schema']?.image);
    assert.match(services['temporal-setup']?.image ?? '', /^temporalio\/admin-tools:/);
    assert.match(services.temporal?.image ?? '', /^temporalio\/server:/);
    assert.match(services['temporal-ui']?.image ?? '', /^temporalio\/ui:/);
    assert.equal(
      services.temporal?.depends_on?.['temporal-schema']?.condition,
      'service_completed_successfully',
    );
    assert.equal(
      services.worker?.depends_on?.['temporal-setup']?.condition,
      'service_completed_successfully',
    );
    assert.ok(
      model.volumes && 'postgres-data' in model.volumes,
      'PostgreSQL keeps its data in a named volume',
    );
    const pgData = services.postgresql?.volumes?.find((v) => v.target === '/var/lib/postgresql/data');
    assert.equal(pgData?.type, 'volume');
    assert.equal(model.networks?.database?.internal, true, 'the database is on an internal network');
    assert.ok(!services.postgresql?.ports?.length, 'PostgreSQL publishes no port');
    for (const name of ['temporal', 'temporal-ui'])
      for (const port of services[name]?.ports ?? [])
        assert.equal(port.host_ip, '127.0.0.1', `${name} listens on loopback by default`);
  });

  it('builds the worker from ./Dockerfile and gives it Temporal, the Docker socket, /etc/mesh and MESH_CONFIG', async () => {
    const worker = model.services.worker;
    assert.ok(worker?.build, 'the worker is built');
    assert.equal(worker.build.context, ROOT);
    assert.equal(worker.build.args?.BASE_IMAGE, 'node:20-bookworm-slim');
    assert.equal(worker.init, true, 'an init reaps the node agents the local mesh spawns');
    assert.equal(worker.environment?.TEMPORAL_ADDRESS, 'temporal:7233');
    assert.equal(worker.environment?.TEMPORAL_NAMESPACE, 'default');
    assert.equal(worker.environment?.MESH_CONFIG, '', 'the config file is optional');
    const mounts = new Map((worker.volumes ?? []).map((v) => [v.target, v]));
    assert.equal(mounts.get('/var/run/docker.sock')?.source, '/var/run/docker.sock');
    assert.equal(mounts.get('/etc/mesh')?.source, join(ROOT, 'deploy', 'mesh'));
    assert.equal(mounts.get('/etc/mesh')?.read_only, true);
    const state = worker.environment?.MESH_LOCAL_STATE ?? '';
    assert.equal(mounts.get(state)?.source, state, 'the local state sits at the same path inside and out');
    const own = worker.environment?.MESH_STATE_DIR ?? '';
    assert.equal(
      mounts.get(own)?.type,
      'volume',
      "the worker's own state is a named volume: a recreated container keeps it",
    );
    assert.ok(model.volumes && mounts.get(own)?.source === 'worker-state' && 'worker-state' in model.volumes);
    const dockerfile = await readFile(join(ROOT, 'Dockerfile'), 'utf8');
    assert.match(dockerfile, /^ARG BASE_IMAGE=node:20-bookworm-slim$/m);
    assert.match(dockerfile, /^HEALTHCHECK [^\n]*\\\n\s*CMD .*compose-worker-healthcheck\.ts/m);
  });

  it('registers exactly the search attributes the workflows use, each with its type', async () => {
    assert.deepEqual(
      await scriptedNamesAndTypes(),
      MESH_SEARCH_ATTRIBUTES.map((key) => [key.name, searchAttributeTypeName(key)]),
    );
  });

  it('holds no secret: without POSTGRES_PASSWORD from an env file Compose refuses to render it', async () => {
    const env = { ...process.env };
    delete env.POSTGRES_PASSWORD;
    const refused = await compose(PRODUCTION_FILE, ['--env-file', '/dev/null', 'config', '--quiet'], { env });
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /POSTGRES_PASSWORD/);
    const ignored = await runProgram('git', ['check-ignore', '--quiet', '.env']);
    assert.equal(ignored.code, 0, '.env (the real env file) is git-ignored');
  });
});

describe('deploy/local/compose.yml: the worker image runs a runbook against Temporal in a container', () => {
  const project = `meshcompose${randomBytes(3).toString('hex')}`;
  const taskQueue = `compose-${randomBytes(4).toString('hex')}`;
  const workerImage = `mesh-local/runbook-worker:${project}`;
  let images: LocalImages;
  let world: LocalWorld;
  let env: NodeJS.ProcessEnv;
  let address: string;
  let uiUrl: string;
  let up = false;

  const composeLocal = (args: string[], timeoutMs?: number) =>
    compose(LOCAL_FILE, args, { project, env, ...(timeoutMs !== undefined ? { timeoutMs } : {}) });

  before(async () => {
    await ensureCompose();
    images = await localImages();
    timing('local images (base with dependencies, Temporal dev server)', images.outcome.seconds);
    world = await LocalWorld.create();
    const [temporalPort, uiPort] = [await freePort(), await freePort()];
    address = `127.0.0.1:${temporalPort}`;
    uiUrl = `http://127.0.0.1:${uiPort}`;
    env = {
      MESH_LOCAL_BASE_IMAGE: images.base,
      MESH_LOCAL_TEMPORAL_IMAGE: images.temporal,
      MESH_LOCAL_WORKER_IMAGE: workerImage,
      MESH_LOCAL_STATE: world.stateDir,
      MESH_LOCAL_TEMPORAL_PORT: String(temporalPort),
      MESH_LOCAL_UI_PORT: String(uiPort),
      MESH_TASK_QUEUE: taskQueue,
    };
    const build = succeeded(await composeLocal(['build', 'worker'], 15 * 60_000), 'docker compose build');
    timing('worker image build (docker compose build)', build.seconds);
    up = true;
    const started = succeeded(await composeLocal(['up', '--detach', '--wait'], 5 * 60_000), 'compose up');
    timing('docker compose up --wait (healthy worker)', started.seconds);
  });

  after(async () => {
    if (up) {
      const logs = await composeLocal(['logs', '--no-color', '--tail', '40']);
      if (logs.code === 0)
        process.stdout.write(`# compose logs (last lines):\n${logs.stdout.replace(/^/gm, '# ')}\n`);
      await composeLocal(['down', '--volumes', '--timeout', '30']);
    }
    await runProgram('docker', ['image', 'rm', workerImage]);
    await world?.cleanup();
  });

  /** `mesh runbook ...` on this machine, against the Temporal in the container. */
  const mesh = (...args: string[]) =>
    runProgram(MESH, ['runbook', ...args], {
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: address,
        TEMPORAL_NAMESPACE: 'default',
        MESH_TASK_QUEUE: taskQueue,
        // The mesh the container's worker uses: start plans on it, and refuses what its preflight would.
        MESH_ADAPTER: 'local',
        MESH_LOCAL_STATE: world.stateDir,
      },
      timeoutMs: 60_000,
    });

  async function statusUntil(node: string, done: (s: RunbookStatus) => boolean): Promise<RunbookStatus> {
    const deadline = Date.now() + WAIT_MS;
    let last = '';
    while (Date.now() < deadline) {
      const outcome = await mesh('status', node, '--json');
      last = outcome.stdout || outcome.stderr;
      if (outcome.stdout.trim().startsWith('{')) {
        const status = JSON.parse(outcome.stdout) as RunbookStatus;
        if (done(status)) return status;
      }
      await delay(1_000);
    }
    throw new Error(`runbook on ${node} did not get there within ${WAIT_MS} ms; last status:\n${last}`);
  }

  it('registers the search attributes with deploy/temporal/setup-namespace.sh, and serves the Web UI', async () => {
    const listed = succeeded(
      await runProgram('temporal', [
        'operator',
        'search-attribute',
        'list',
        '--address',
        address,
        '--namespace',
        'default',
        '--output',
        'json',
      ]),
      'temporal operator search-attribute list',
    );
    const custom = (JSON.parse(listed.stdout) as { customAttributes?: Record<string, string> })
      .customAttributes;
    for (const [name, type] of await scriptedNamesAndTypes())
      assert.match(
        String(custom?.[name]),
        new RegExp(type, 'i'),
        `${name} is registered as ${type}: ${listed.stdout}`,
      );
    const health = await fetch(`${uiUrl}/healthz`);
    assert.equal(health.status, 200, 'the Web UI answers the health check docker-compose.yml uses');
  });

  it('the worker container polls the task queue and is healthy by its own check', async () => {
    const id = succeeded(await composeLocal(['ps', '--quiet', 'worker']), 'compose ps').stdout.trim();
    assert.ok(id, 'the worker container exists');
    const inspect = succeeded(
      await runProgram('docker', [
        'inspect',
        '--format',
        '{{.State.Health.Status}} {{.Config.Hostname}}',
        id,
      ]),
      'docker inspect',
    );
    const [health, hostname] = inspect.stdout.trim().split(' ');
    assert.equal(health, 'healthy');
    const connection = await Connection.connect({ address });
    try {
      const { pollers } = await connection.workflowService.describeTaskQueue({
        namespace: 'default',
        taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
      });
      const identities = (pollers ?? []).map((p) => p.identity ?? '');
      assert.ok(identities.length > 0, 'somebody polls');
      assert.ok(
        identities.every((identity) => identity.endsWith(`@${hostname}`)),
        `only the container polls ${taskQueue}: ${identities.join(', ')}`,
      );
    } finally {
      await connection.close();
    }
  });

  it('moves a module’s data on the local mesh: started, decided and approved from the host CLI', async () => {
    const forge = await seedForge(world);
    const start = await mesh(
      'start',
      'data-path-move',
      '--node',
      forge.node,
      '--module',
      forge.module,
      '--from',
      FROM,
      '--to',
      TO,
      '--container',
      'web',
      '--as',
      'alice',
      '--detach',
      '--json',
    );
    assert.equal(start.code, 0, start.stderr);

    // The mesh leaves the container on A (incident 2): the runbook waits instead of moving on.
    const gate = await statusUntil(forge.node, (s) => s.waiting?.gate === 'gate-apply');
    assert.equal(gate.waiting?.verdict, 'unrecreated-volume', gate.waiting?.reason);
    const recreate = await mesh('decide', forge.node, 'recreate', '--as', 'bob');
    assert.notEqual(recreate.code, 2, recreate.stderr);

    const approval = await statusUntil(forge.node, (s) => s.waiting?.gate === 'approve-remove-old-data');
    assert.deepEqual(approval.waiting?.actions, ['remove', 'keep']);
    const remove = await mesh('decide', forge.node, 'remove', '--as', 'bob');
    assert.notEqual(remove.code, 2, remove.stderr);

    const done = await statusUntil(forge.node, (s) => s.phase !== 'running' && s.phase !== 'waiting');
    assert.equal(done.phase, 'completed', done.outcome);
    const info = await world.engine.inspect(forge.web);
    assert.ok(info?.State.Running, `${forge.web} runs`);
    assert.deepEqual(
      info.Mounts.map((m) => m.Source),
      [forge.hostTo],
      'recreated on B by the worker in the container',
    );
    assert.equal(existsSync(join(forge.hostTo, 'index.html')), true, 'the data is on B');
    assert.equal(existsSync(forge.hostFrom), false, 'A removed after the approval');
    const served = await (await fetch(`http://127.0.0.1:${forge.port}/index.html`)).text();
    assert.match(served, new RegExp(`served by ${forge.module}`));
  });
});
