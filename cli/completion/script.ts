import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { isThisCli, resolveProgram } from '../../mesh/command/controller-program';
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

/**
 * The names the script completes: mesh-runbook, and mesh unless `mesh` on the PATH is another program (an
 * operator's own mesh controller keeps its own completion; this CLI is mesh-runbook there).
 */
export function namesToComplete(path: string | undefined): string[] {
  const mesh = resolveProgram('mesh', path);
  return mesh === undefined || isThisCli(mesh) ? ['mesh', 'mesh-runbook'] : ['mesh-runbook'];
}

function header(shell: Shell, names: string[]): string[] {
  const loading = `\`source <(${names[0]} completion ${shell})\``;
  if (shell === 'bash')
    return [
      `# bash completion for ${names.join(' and ')}, printed by \`${names[0]} completion bash\`.`,
      `# Load it in this shell with ${loading}; in every new one, put that line in ~/.bashrc.`,
    ];
  return [
    `#compdef ${names.join(' ')}`,
    `# zsh completion for ${names.join(' and ')}, printed by \`${names[0]} completion zsh\`.`,
    `# Load it in this shell with ${loading} after compinit; in every new one, put that line in ~/.zshrc`,
    '# after compinit, or save the script as _mesh in a directory of $fpath.',
  ];
}

/**
 * The completion script for `shell`, for `names`: verbs, options and their values from `program`'s own
 * commands; runbook ids and nodes asked of this CLI (`completion <shell> --runbooks`) as they are completed.
 */
export function completionScript(shell: Shell, program: Command, names: string[]): string {
  return [
    ...header(shell, names),
    '',
    commandFunction(completionTable(program)),
    '',
    part('walk.sh').replaceAll('@shell@', shell),
    part(`${shell}.sh`).replaceAll('@names@', names.join(' ')),
  ].join('\n');
}
