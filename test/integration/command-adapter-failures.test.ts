import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CommandMesh } from '../../mesh/command/adapter';
import { CommandMeshConfigError, loadCommandMeshConfig } from '../../mesh/command/config';
import { MeshCommandError, MeshUnreadableError } from '../../mesh/errors';
import { STAND_IN, standInMesh } from '../fixtures/fake-mesh/stand-in';
import { Scratch } from '../support/scratch';

describe("command adapter failures against a recorded stand-in for the operator's mesh controller (the real one cannot run here)", () => {
  const scratch = new Scratch();
  let mesh: CommandMesh;

  before(async () => {
    mesh = standInMesh(await scratch.dir('command-mesh-')).mesh;
  });
  after(() => scratch.cleanup());

  it("rejects the stand-in's truncated output, naming the command", async () => {
    await assert.rejects(mesh.push('kestrel'), (error: unknown) => {
      assert.ok(error instanceof MeshUnreadableError);
      assert.match(
        error.message,
        /mesh\.mjs push kestrel --json`: the document is not valid JSON \(truncated\?\)/,
      );
      return true;
    });
  });

  it("rejects the stand-in's malformed report, naming the command and the field", async () => {
    await assert.rejects(mesh.applyReport('kestrel', 'p-7'), (error: unknown) => {
      assert.ok(error instanceof MeshUnreadableError);
      assert.equal(error.field, 'held.0.reason');
      assert.match(error.message, /apply-report kestrel --push p-7 --json`: field "held\.0\.reason"/);
      return true;
    });
  });

  it('rejects output about another node than the one asked for', async () => {
    await assert.rejects(mesh.nodeState('ghost'), { name: 'MeshUnreadableError', field: 'node' });
  });

  it('turns a non-zero exit of the stand-in into MeshCommandError with its stderr', async () => {
    await assert.rejects(mesh.take('route-proxy', 'helix'), (error: unknown) => {
      assert.ok(error instanceof MeshCommandError);
      assert.equal(error.exitCode, 2);
      assert.match(error.stderr, /route-proxy is not assigned to helix/);
      assert.match(
        error.message,
        /take route-proxy helix --json` exited with code 2:\nmesh: take route-proxy helix/,
      );
      return true;
    });
  });

  it('gives MeshCommandError when the stand-in outlives the timeout', async () => {
    const impatient = new CommandMesh(loadCommandMeshConfig({ command: STAND_IN, timeoutMs: 300 }));
    const started = Date.now();
    await assert.rejects(impatient.nodeState('slowpoke'), (error: unknown) => {
      assert.ok(error instanceof MeshCommandError);
      assert.match(error.message, /node show slowpoke --json` timed out after 300 ms/);
      return true;
    });
    assert.ok(Date.now() - started < 3_000);
  });

  it('gives MeshCommandError when the controller program does not exist', async () => {
    const missing = new CommandMesh(loadCommandMeshConfig({ command: join(tmpdir(), 'no-such-mesh') }));
    await assert.rejects(missing.push('novox'), {
      name: 'MeshCommandError',
      exitCode: null,
      message: /could not run/,
    });
  });

  it('rejects a config with an unknown placeholder before any call reaches the stand-in', () => {
    const config = { command: STAND_IN, verbs: { take: { args: ['take', '{modul}', '{node}'] } } };
    assert.throws(() => new CommandMesh(loadCommandMeshConfig(config)), CommandMeshConfigError);
  });
});
