import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UnsafeMeshArgumentError, buildArgv, describeArgv, placeholdersIn } from '../../mesh/command/argv';
import { DEFAULT_VERB_ARGS } from '../../mesh/command/config';

const mesh = (verb: keyof typeof DEFAULT_VERB_ARGS) => ({ command: 'mesh', args: DEFAULT_VERB_ARGS[verb] });

describe('command argv builder (pure: template + values → argument array)', () => {
  it('builds the default argument arrays of every verb', () => {
    const node = 'novox';
    const module = 'route-proxy';
    assert.deepEqual(buildArgv('assign', mesh('assign'), { module, node }).args, [
      'assign',
      module,
      node,
      '--json',
    ]);
    assert.deepEqual(buildArgv('unassign', mesh('unassign'), { module, node }).args, [
      'unassign',
      module,
      node,
      '--json',
    ]);
    assert.deepEqual(buildArgv('take', mesh('take'), { module, node }).args, [
      'take',
      module,
      node,
      '--json',
    ]);
    assert.deepEqual(buildArgv('push', mesh('push'), { node }).args, ['push', node, '--json']);
    assert.deepEqual(buildArgv('applyReport', mesh('applyReport'), { node, pushId: 'p-9' }).args, [
      'node',
      'apply-report',
      node,
      '--push',
      'p-9',
      '--json',
    ]);
    assert.deepEqual(buildArgv('nodeState', mesh('nodeState'), { node }).args, [
      'node',
      'show',
      node,
      '--json',
    ]);
    assert.deepEqual(buildArgv('moduleSpec', mesh('moduleSpec'), { module }).args, [
      'module',
      'show',
      module,
      '--json',
    ]);
    assert.deepEqual(
      buildArgv('setModuleSpec', mesh('setModuleSpec'), { module, specFile: '/tmp/x/rp.json' }).args,
      ['module', 'define', '/tmp/x/rp.json'],
    );
    assert.deepEqual(
      buildArgv('setUpgradePolicy', mesh('setUpgradePolicy'), { module, policy: 'roll-out' }).args,
      ['module', 'set-policy', module, 'roll-out'],
    );
    assert.equal(
      buildArgv('push', { command: '/opt/mesh/bin/mesh', args: [] }, { node }).command,
      '/opt/mesh/bin/mesh',
    );
  });

  it('substitutes a placeholder inside one element and keeps it one element', () => {
    const template = { command: 'mesh', args: ['node', 'report', '--node={node}', '--push={pushId}'] };
    const argv = buildArgv('applyReport', template, { node: 'novox', pushId: '-p 9' });
    assert.deepEqual(argv.args, ['node', 'report', '--node=novox', '--push=-p 9']);
  });

  it('passes spaces, quotes, `;` and `$()` through as one untouched argument', () => {
    const hostile = `route proxy"; rm -rf / $(id) \`id\` 'x' && echo`;
    const argv = buildArgv('assign', mesh('assign'), { module: hostile, node: 'novox\nfoo' });
    assert.deepEqual(argv.args, ['assign', hostile, 'novox\nfoo', '--json']);
  });

  it('never expands a placeholder that arrives inside a value', () => {
    const argv = buildArgv('applyReport', mesh('applyReport'), { node: '{pushId}', pushId: 'p-1' });
    assert.equal(argv.args[2], '{pushId}');
  });

  it('refuses a value that would turn a positional argument into an option', () => {
    assert.throws(() => buildArgv('push', mesh('push'), { node: '--all' }), UnsafeMeshArgumentError);
    assert.throws(() => buildArgv('push', mesh('push'), { node: '-n' }), /would read as an option/);
  });

  it('refuses empty values and NUL bytes', () => {
    assert.throws(() => buildArgv('push', mesh('push'), { node: '' }), /empty or contains a NUL byte/);
    assert.throws(() => buildArgv('push', mesh('push'), { node: 'no\0vox' }), UnsafeMeshArgumentError);
  });

  it('lists the placeholders a template uses and leaves other braces alone', () => {
    assert.deepEqual(placeholdersIn('--push={pushId}'), ['pushId']);
    assert.deepEqual(placeholdersIn('{module}/{node}'), ['module', 'node']);
    assert.deepEqual(placeholdersIn('{"json": 1}'), []);
    assert.deepEqual(placeholdersIn('{ node }'), []);
  });

  it('describes a command line for messages, quoting what a reader could misread', () => {
    const described = describeArgv({ command: 'mesh', args: ['push', 'novox', '--json', 'a b', ''] });
    assert.equal(described, 'mesh push novox --json "a b" ""');
  });
});
