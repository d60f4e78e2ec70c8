/* eslint-disable @typescript-eslint/no-require-imports -- a group's verbs are loaded when named; see below */
import type { Command } from 'commander';
import type * as Local from './local';
import { declareLocal } from './local/group';
import type * as Runbook from './runbook';
import { declareRunbook } from './runbook/group';
import { takesValue } from './unknown-command';

/**
 * Declares `mesh local` and `mesh runbook` and adds the verbs of the group the command line names. The
 * verbs' modules load zod and the schemas; `mesh --help`, `mesh config` and the other group do not need
 * them. As `mesh-runbook` (the plugin), a command line that names no other command is a runbook verb's.
 */
export function registerGroups(program: Command, args: readonly string[], asPlugin: boolean): void {
  const local = declareLocal(program);
  const runbook = declareRunbook(program);
  const [first, second] = operands(program, args);
  if (first === 'local') (require('./local') as typeof Local).addLocalVerbs(local);
  const runbookVerbs = (verb: string | undefined) =>
    (require('./runbook') as typeof Runbook).addRunbookVerbs(runbook, verb);
  if (first === 'runbook') runbookVerbs(second);
  else if (asPlugin && first !== undefined && !program.commands.some((command) => command.name() === first))
    runbookVerbs(first);
}

/**
 * Every verb of every group, on a program whose groups have none yet (or only the verbs the command line
 * named): for what describes the whole command, the CLI reference and the completion script.
 */
export function addEveryVerb(program: Command): void {
  const group = (name: string) => program.commands.find((command) => command.name() === name);
  const local = group('local');
  const runbook = group('runbook');
  if (local && local.commands.length === 0) (require('./local') as typeof Local).addLocalVerbs(local);
  if (runbook && runbook.commands.length === 0)
    (require('./runbook') as typeof Runbook).addRunbookVerbs(runbook);
}

/**
 * The first two words of `args` that are neither options nor an option's value (`help` left out: `help x`
 * asks about x). Options between the two are the program's own, or the group's, which take no value.
 */
function operands(program: Command, args: readonly string[]): (string | undefined)[] {
  const found: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i] ?? '';
    if (word === '--') {
      found.push(...args.slice(i + 1));
      break;
    }
    if (!word.startsWith('-')) {
      if (word !== 'help') found.push(word);
    } else if (takesValue(program, word)) i++;
  }
  return found.slice(0, 2);
}
