import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { PACKAGE_ROOT } from '../../mesh/package-root';
import { completionTable, type CommandEntry } from './table';

export const SHELLS = ['bash', 'zsh'] as const;
export type Shell = (typeof SHELLS)[number];

/** The shell parts beside this file's source (cli/completion/), whether the CLI runs compiled or not. */
const part = (name: string) => readFileSync(join(PACKAGE_ROOT, 'cli', 'completion', name), 'utf8');

const quoted = (words: readonly string[]) => `'${words.join(' ')}'`;

/** The table as a shell function: `__mesh_command PATH` sets the command's subcommands, options and arguments. */
function commandFunction(entries: CommandEntry[]): string {
  const cases = entries.map(
    (entry) =>
      `    ${quoted([entry.path])}) __mesh_subs=${quoted(entry.subcommands)} __mesh_opts=${quoted(entry.options)} __mesh_args=${quoted(entry.arguments)} ;;`,
  );
  return [
    '# What each command takes, from the CLI’s own definitions: its subcommands, its options (NAME=VALUES when',
    '# it takes a value) and where its arguments’ values come from (@runbook, @node, @file, a|b, - for free text).',
    '__mesh_command() {',
    '  case $1 in',
    ...cases,
    "    *) __mesh_subs='' __mesh_opts='' __mesh_args='' && return 1 ;;",
    '  esac',
    '}',
  ].join('\n');
}

const HEADER: Record<Shell, string[]> = {
  bash: [
    '# bash completion for mesh and mesh-runbook, printed by `mesh completion bash`.',
    '# Load it in this shell with `source <(mesh completion bash)`; in every new one, put that line in ~/.bashrc.',
  ],
  zsh: [
    '#compdef mesh mesh-runbook',
    '# zsh completion for mesh and mesh-runbook, printed by `mesh completion zsh`.',
    '# Load it in this shell with `source <(mesh completion zsh)` after compinit; in every new one, put that',
    '# line in ~/.zshrc after compinit, or save the script as _mesh in a directory of $fpath.',
  ],
};

/**
 * The completion script for `shell`: verbs, options and their values from `program`'s own commands; runbook
 * ids and nodes asked of this CLI (`mesh completion <shell> --runbooks`) at the moment they are completed.
 */
export function completionScript(shell: Shell, program: Command): string {
  return [
    ...HEADER[shell],
    '',
    commandFunction(completionTable(program)),
    '',
    part('walk.sh').replaceAll('@shell@', shell),
    part(`${shell}.sh`),
  ].join('\n');
}
