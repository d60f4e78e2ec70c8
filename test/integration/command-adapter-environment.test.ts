import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadCommandMeshConfig } from '../../mesh/command/config';
import { standInMesh } from '../fixtures/fake-mesh/stand-in';
import { Scratch } from '../support/scratch';

/** The worker's own settings and secrets, as a deployment puts them in its environment. */
const WORKER_ENV = {
  TEMPORAL_API_KEY: 'secret-temporal-api-key',
  TEMPORAL_TLS_CLIENT_KEY_DATA: 'secret-tls-key',
  AWS_SECRET_ACCESS_KEY: 'secret-cloud-key',
  MESH_CONFIG: '/etc/mesh/runbook.yaml',
  CONTROLLER_TOKEN: 'the-controller-token',
  LC_TIME: 'C.UTF-8',
};

describe("the controller gets an allow-listed environment, never the worker's (recorded stand-in; the real controller cannot run here)", () => {
  const scratch = new Scratch();
  const before_: Record<string, string | undefined> = {};

  before(() => {
    for (const [name, value] of Object.entries(WORKER_ENV)) {
      before_[name] = process.env[name];
      process.env[name] = value;
    }
  });
  after(async () => {
    for (const [name, value] of Object.entries(before_)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await scratch.cleanup();
  });

  it("keeps the worker's TEMPORAL_API_KEY and other secrets out of the controller's environment", async () => {
    const { mesh, received } = standInMesh(await scratch.dir('command-env-'), {
      passEnv: ['CONTROLLER_TOKEN'],
    });
    await mesh.push('novox');
    const [call] = await received();
    assert.ok(call, 'the stand-in ran');
    const secrets = Object.values(WORKER_ENV).filter((value) => value.startsWith('secret-'));
    for (const secret of secrets)
      assert.equal(JSON.stringify(call.env).includes(secret), false, `${secret} reached the controller`);
    assert.equal(call.env.TEMPORAL_API_KEY, undefined);
    assert.equal(call.env.MESH_CONFIG, undefined, "the worker's own MESH_* settings stay the worker's");
    assert.equal(call.env.PATH, process.env.PATH, 'PATH is inherited, so the controller finds its tools');
    assert.equal(call.env.LC_TIME, 'C.UTF-8', 'the locale is inherited');
    assert.equal(call.env.CONTROLLER_TOKEN, 'the-controller-token', 'passEnv hands over what it names');
    assert.ok(call.env.FAKE_MESH_ARGV_LOG, "the config's env is set");
  });

  it("refuses to hand the controller the worker's TEMPORAL_* settings, even when asked to", () => {
    assert.throws(
      () => loadCommandMeshConfig({ passEnv: ['TEMPORAL_API_KEY'] }),
      /passEnv\.0: the controller never gets the worker’s TEMPORAL_\* settings/,
    );
  });
});
