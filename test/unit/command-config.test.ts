import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CommandMeshConfigError, DEFAULT_VERB_ARGS, loadCommandMeshConfig } from '../../mesh/command/config';

/** A PATH whose `mesh` is not this CLI (the bootstrap links this CLI as /usr/local/bin/mesh). */
const CONTROLLER_ONLY = { PATH: '/opt/mesh-controller/bin' };

describe('command adapter config', () => {
  it('fills every verb with the default `mesh ... --json` command and a timeout', () => {
    const config = loadCommandMeshConfig(undefined, CONTROLLER_ONLY);
    assert.deepEqual(config.verbs.push, {
      command: 'mesh',
      args: ['push', '{node}', '--json'],
      timeoutMs: 30_000,
    });
    assert.deepEqual(config.verbs.setModuleSpec.args, ['module', 'define', '{specFile}']);
    assert.deepEqual(config.env, {});
    assert.equal(Object.keys(config.verbs).length, Object.keys(DEFAULT_VERB_ARGS).length);
  });

  it('takes the program and timeout from the top, overridable per verb', () => {
    const config = loadCommandMeshConfig({
      command: '/opt/mesh/bin/mesh',
      timeoutMs: 5_000,
      verbs: { push: { args: ['push', '--node', '{node}', '-o', 'json'], timeoutMs: 120_000 } },
    });
    assert.deepEqual(config.verbs.push, {
      command: '/opt/mesh/bin/mesh',
      args: ['push', '--node', '{node}', '-o', 'json'],
      timeoutMs: 120_000,
    });
    assert.deepEqual(config.verbs.take, {
      command: '/opt/mesh/bin/mesh',
      args: DEFAULT_VERB_ARGS.take,
      timeoutMs: 5_000,
    });
  });

  it('rejects an unknown placeholder with one sentence naming the verb and the placeholder', () => {
    assert.throws(
      () => loadCommandMeshConfig({ verbs: { push: { args: ['push', '{nodes}'] } } }),
      (error: unknown) => {
        assert.ok(error instanceof CommandMeshConfigError);
        assert.equal(
          error.message,
          'Invalid mesh command config: verbs.push.args.1: the push command uses the unknown placeholder {nodes}; push only knows {node}.',
        );
        return true;
      },
    );
  });

  it("rejects another verb's placeholder (push has no {pushId})", () => {
    assert.throws(
      () => loadCommandMeshConfig({ verbs: { push: { args: ['push', '{node}', '--id={pushId}'] } } }),
      /the push command uses the unknown placeholder \{pushId\}/,
    );
  });

  it('rejects unknown verbs, unknown keys and a non-positive timeout', () => {
    assert.throws(() => loadCommandMeshConfig({ verbs: { deploy: { args: [] } } }), CommandMeshConfigError);
    assert.throws(() => loadCommandMeshConfig({ shell: true }), CommandMeshConfigError);
    assert.throws(() => loadCommandMeshConfig({ timeoutMs: 0 }), /timeoutMs/);
  });
});
