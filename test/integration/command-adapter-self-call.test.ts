import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ConfigError, loadConfig } from '../../config';
import { loadCommandMeshConfig } from '../../mesh/command/config';
import { STAND_IN } from '../fixtures/fake-mesh/stand-in';
import { Scratch } from '../support/scratch';

const BIN = join(__dirname, '..', '..', 'bin', 'mesh.js');
const run = promisify(execFile);

describe('the command adapter never drives this CLI as if it were the mesh controller', () => {
  const scratch = new Scratch();
  let linked = '';
  let standIn = '';

  before(async () => {
    // A host where this CLI is installed as `mesh` (npm link, a symlink in /usr/local/bin) ...
    linked = await scratch.dir('self-call-linked-');
    await symlink(BIN, join(linked, 'mesh'));
    await symlink(BIN, join(linked, 'mesh-runbook'));
    // ... and one where `mesh` is the operator's controller (here the recorded stand-in).
    standIn = await scratch.dir('self-call-controller-');
    await symlink(STAND_IN, join(standIn, 'mesh'));
  });
  after(() => scratch.cleanup());

  it('refuses a controller that resolves to bin/mesh.js through a symlink on PATH, naming both', () => {
    assert.throws(
      () => loadCommandMeshConfig({}, { PATH: `${linked}:/usr/bin:/bin` }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError, String(error));
        assert.match(
          error.message,
          /^The command adapter's controller "mesh" is this mesh-runbook CLI \(\S+\/bin\/mesh\.js\), so the adapter would call itself/,
        );
        assert.match(error.suggestion, /absolute path/);
        return true;
      },
    );
  });

  it('refuses it given as a path, as mesh-runbook, for one verb only, or on the config’s own PATH', () => {
    const PATH = `${standIn}:/usr/bin:/bin`;
    const refused = [
      { command: join(linked, 'mesh') },
      { command: 'mesh-runbook' },
      { verbs: { push: { command: join(linked, 'mesh-runbook'), args: ['push', '{node}'] } } },
      { env: { PATH: linked } },
    ];
    for (const config of refused) {
      assert.throws(
        () => loadCommandMeshConfig(config, { PATH: `${PATH}:${linked}` }),
        /would call itself/,
        JSON.stringify(config),
      );
    }
  });

  it('takes a `mesh` that is another program, or one not installed yet', () => {
    assert.equal(loadCommandMeshConfig({}, { PATH: `${standIn}:${linked}` }).verbs.push.command, 'mesh');
    assert.equal(loadCommandMeshConfig({}, { PATH: '/nonexistent' }).verbs.push.command, 'mesh');
  });

  it('runs as mesh-runbook, where an operator’s own mesh hands `mesh runbook <verb> ...` over', async () => {
    const { stdout } = await run(join(linked, 'mesh-runbook'), ['status', '--help']);
    assert.match(stdout, /^Usage: mesh runbook status \[options\] <id>/);
  });

  it('refuses it when the config loads, so every CLI command and the worker say so (exit 2)', async () => {
    const adapter = join(linked, 'adapter.json');
    await writeFile(adapter, JSON.stringify({ timeoutMs: 5_000 }));
    const env = {
      MESH_ADAPTER: 'command',
      MESH_COMMAND_CONFIG: adapter,
      PATH: `${linked}:${process.env.PATH}`,
    };
    assert.throws(() => loadConfig({ env }), /\(MESH_COMMAND_CONFIG\)\.$/);
    const outcome = await run(BIN, ['config'], { env: { ...process.env, ...env } }).then(
      () => assert.fail('mesh config ran with an adapter that calls itself'),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    assert.equal(outcome.code, 2, outcome.stderr);
    assert.match(outcome.stderr, /^error: The command adapter's controller "mesh" is this mesh-runbook CLI/);
  });
});
