import type { Command } from 'commander';
import { UsageError } from './errors';

/** Commands whose unknown subcommand deserves its own sentence (`start <kind>` names the kinds). */
const sentences = new WeakMap<Command, (name: string) => UsageError>();

export function onUnknownSubcommand(command: Command, sentence: (name: string) => UsageError): void {
  sentences.set(command, sentence);
}

/**
 * The first word of `args` that names no subcommand where one is expected (`mesh runbook plna`,
 * `mesh runbook help plna`), as a usage error. Checked before commander parses, because commander shows
 * the parent's help for `mesh runbook plna --help` instead of saying that `plna` does not exist.
 */
export function unknownSubcommand(program: Command, args: readonly string[]): UsageError | undefined {
  let command = program;
  for (let i = 0; i < args.length; i++) {
    const word = args[i] ?? '';
    if (word === '--') return undefined;
    if (word.startsWith('-')) {
      if (takesValue(command, word)) i++;
      continue;
    }
    if (command.commands.length === 0) return undefined;
    // `help <name>` asks about <name>; `help` alone is commander's own.
    const asked = word === 'help' ? args[i + 1] : undefined;
    if (word === 'help' && asked === undefined) return undefined;
    const named = asked ?? word;
    if (asked !== undefined) i++;
    const found = command.commands.find((sub) => sub.name() === named || sub.aliases().includes(named));
    if (!found) return sentences.get(command)?.(named) ?? notACommand(command, named);
    command = found;
  }
  return undefined;
}

/** Whether an option of this command or an ancestor consumes the next word (`--config <file>`). */
export function takesValue(command: Command, word: string): boolean {
  if (word.includes('=')) return false;
  for (let at: Command | null = command; at; at = at.parent) {
    const option = at.options.find((candidate) => candidate.long === word || candidate.short === word);
    if (option) return option.required;
  }
  return false;
}

function notACommand(command: Command, name: string): UsageError {
  const path = commandPath(command);
  const names = command.commands.map((sub) => sub.name());
  const similar = closest(name, names);
  return new UsageError(
    `${path} has no command "${name}".`,
    similar
      ? `Did you mean \`${path} ${similar}\`?`
      : `Its commands: ${names.join(', ')}; see \`${path} --help\`.`,
  );
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** The candidate a typo of `word` most likely meant: the one nearest, within two edits, if no other ties it. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const scored = candidates.map((candidate) => ({ candidate, edits: editDistance(word, candidate) }));
  const best = Math.min(...scored.map(({ edits }) => edits));
  const nearest = scored.filter(({ edits }) => edits === best && edits <= 2);
  return nearest.length === 1 ? nearest[0]?.candidate : undefined;
}

/** Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`, row by row. */
function editDistance(a: string, b: string): number {
  let twoBack: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, (twoBack[j - 2] ?? 0) + 1);
      row.push(best);
    }
    [twoBack, previous] = [previous, row];
  }
  return previous[b.length] ?? 0;
}
