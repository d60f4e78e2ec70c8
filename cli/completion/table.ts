import type { Argument, Command, Option } from 'commander';

/**
 * Where the values of an argument or an option come from: `@runbook` the runbooks on the task queue (their
 * ids and nodes), `@node` their nodes, `@nodes` a comma list of them, `@file` and `@dir` names on disk,
 * `a|b|c` fixed choices, `-` free text (nothing to offer).
 */
export type ValueSource = string;

/** One command as the completion script walks it. */
export interface CommandEntry {
  /** `mesh runbook start edge-flip` */
  path: string;
  subcommands: string[];
  /** `--json`, `-h`; `--node=@node` when it takes a value (`--module=-`: free text). */
  options: string[];
  /** Where each positional argument's values come from, in order. */
  arguments: ValueSource[];
}

/** Values named by the placeholder they are declared with (`<id>`, `--config <file>`). */
const BY_PLACEHOLDER: Record<string, ValueSource> = {
  id: '@runbook',
  node: '@node',
  file: '@file',
  dir: '@dir',
};

/** Options whose value is a list (`--nodes a,b,c`), by the name they are declared with. */
const LISTS: Record<string, ValueSource> = { nodes: '@nodes' };

/** Temporal knows the runbooks and their nodes; other groups' nodes (the local mesh's) are not its. */
const fromTemporal = (source: ValueSource) => ['@runbook', '@node', '@nodes'].includes(source);

/** A word the script can hold in single quotes and split on spaces, or nothing. */
const plain = (word: string) => /^[\w.,:/@+-]+$/.test(word);

function pathOf(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

function sourceOf(
  placeholder: string | undefined,
  choices: readonly string[] | undefined,
  underRunbook: boolean,
): ValueSource {
  const offered = (choices ?? []).filter(plain);
  if (offered.length > 0) return offered.join('|');
  const source = BY_PLACEHOLDER[placeholder ?? ''] ?? '-';
  return fromTemporal(source) && !underRunbook ? '-' : source;
}

function optionEntries(option: Option, underRunbook: boolean): string[] {
  const names = [option.short, option.long].filter((name): name is string => name !== undefined);
  if (!option.required && !option.optional) return names;
  const placeholder = /[<[]([^>\]]+)[>\]]/.exec(option.flags)?.[1];
  const list = LISTS[option.attributeName()];
  const source = list && underRunbook ? list : sourceOf(placeholder, option.argChoices, underRunbook);
  return names.map((name) => `${name}=${source}`);
}

function argumentSource(argument: Argument, command: Command, underRunbook: boolean): ValueSource {
  // A command with subcommands (start and plan: the kinds) offers them; its argument repeats them.
  if (command.commands.length > 0) return '-';
  return sourceOf(argument.name(), argument.argChoices, underRunbook);
}

/** Every command of `program`, as the script walks it, from the commands' own definitions. */
export function completionTable(program: Command): CommandEntry[] {
  const entries: CommandEntry[] = [];
  const visit = (command: Command) => {
    const help = command.createHelp();
    const path = pathOf(command);
    const underRunbook = path === 'mesh runbook' || path.startsWith('mesh runbook ');
    const subcommands = help.visibleCommands(command).map((sub) => sub.name());
    entries.push({
      path,
      subcommands,
      options: help.visibleOptions(command).flatMap((option) => optionEntries(option, underRunbook)),
      arguments: command.registeredArguments.map((argument) =>
        argumentSource(argument, command, underRunbook),
      ),
    });
    // `help <command>` (commander's own): the commands beside it.
    const named = command.commands.map((sub) => sub.name()).filter(plain);
    if (subcommands.includes('help') && named.length > 0)
      entries.push({ path: `${path} help`, subcommands: [], options: [], arguments: [named.join('|')] });
    command.commands.forEach(visit);
  };
  visit(program);
  return entries;
}
