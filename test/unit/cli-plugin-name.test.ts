import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Command } from 'commander';
import { argsAsInvoked } from '../../cli/plugin-name';
import { registerRunbookCommands } from '../../cli/runbook';

const program = new Command('mesh');
program.command('local');
program.command('config');
registerRunbookCommands(program);

describe('the CLI invoked as mesh-runbook, the plugin an operator’s own mesh hands `mesh runbook ...` to', () => {
  it('reads a runbook verb without `runbook` before it, as `mesh runbook status novox` hands it over', () => {
    assert.deepEqual(argsAsInvoked(program, '/usr/local/bin/mesh-runbook', ['status', 'novox']), [
      'runbook',
      'status',
      'novox',
    ]);
    assert.deepEqual(
      argsAsInvoked(program, 'mesh-runbook', ['approve', 'novox', 'approve-stop-predecessor']),
      ['runbook', 'approve', 'novox', 'approve-stop-predecessor'],
    );
  });

  it('reads everything else as `mesh` does: `runbook ...`, `local ...`, `config`, and any call as mesh', () => {
    for (const args of [['runbook', 'status', 'novox'], ['local', 'node', 'list'], ['config'], ['--help']])
      assert.deepEqual(argsAsInvoked(program, '/usr/local/bin/mesh-runbook', args), args);
    assert.deepEqual(argsAsInvoked(program, '/usr/local/bin/mesh', ['status', 'novox']), ['status', 'novox']);
    assert.deepEqual(argsAsInvoked(program, '/opt/mesh-runbook/bin/mesh.js', ['status']), ['status']);
  });
});
