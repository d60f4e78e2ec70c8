import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Command } from 'commander';
import { completionTable } from '../../cli/completion/table';
import { buildWholeProgram } from '../../cli/program';
import { DEMO_KINDS } from '../../cli/runbook/demo/settings';
import { RUNBOOK_KINDS } from '../../workflows/contracts';

function everyPath(command: Command, above = ''): string[] {
  const path = above ? `${above} ${command.name()}` : command.name();
  return [path, ...command.commands.flatMap((sub) => everyPath(sub, path))];
}

const table = completionTable(buildWholeProgram());
const entry = (path: string) => table.find((row) => row.path === path) ?? assert.fail(`no entry ${path}`);

describe('the completion table, from the commands’ own definitions', () => {
  it('has every command of mesh, and `help <command>` beside every group', () => {
    const paths = table.map((row) => row.path);
    for (const path of everyPath(buildWholeProgram())) assert.ok(paths.includes(path), path);
    assert.deepEqual(entry('mesh runbook help').arguments, [
      entry('mesh runbook')
        .subcommands.filter((s) => s !== 'help')
        .join('|'),
    ]);
  });

  it('offers the runbook kinds where a kind goes: start’s and plan’s kinds, the demo’s', () => {
    for (const verb of ['start', 'plan']) {
      const kinds = entry(`mesh runbook ${verb}`).subcommands.filter((sub) => sub !== 'help');
      assert.ok(
        kinds.length > 0 && kinds.every((kind) => (RUNBOOK_KINDS as readonly string[]).includes(kind)),
        verb,
      );
      assert.deepEqual(
        entry(`mesh runbook ${verb}`).arguments,
        ['-'],
        'the subcommands are the kinds; not twice',
      );
    }
    assert.deepEqual(entry('mesh runbook demo').arguments, [DEMO_KINDS.join('|')]);
  });

  it('asks Temporal for runbook ids and nodes only under mesh runbook; files and directories by placeholder', () => {
    assert.deepEqual(entry('mesh runbook decide').arguments, ['@runbook', '-']);
    assert.deepEqual(entry('mesh runbook clear').arguments, ['@node']);
    assert.deepEqual(entry('mesh local push').arguments, ['-'], "the local mesh's nodes are not Temporal's");
    const options = entry('mesh runbook start edge-flip').options;
    for (const option of [
      '--node=@node',
      '--nodes=@nodes',
      '--canary=@node',
      '--key=@file',
      '--module=-',
      '--detach',
    ])
      assert.ok(options.includes(option), option);
    assert.ok(entry('mesh runbook dev').options.includes('--state-dir=@dir'));
    assert.ok(entry('mesh').options.includes('--config=@file'));
  });

  it('offers no hidden option: --runbooks is the script’s own question', () => {
    assert.ok(!entry('mesh completion').options.some((option) => option.startsWith('--runbooks')));
    assert.deepEqual(entry('mesh completion').arguments, ['bash|zsh']);
  });
});
