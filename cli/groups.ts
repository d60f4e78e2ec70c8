/* eslint-disable @typescript-eslint/no-require-imports -- a group's verbs are loaded when named; see below */
import type { Command } from 'commander';
import type * as Local from './local';
import { declareLocal } from './local/group';
import type * as Runbook from './runbook';
import { declareRunbook } from './runbook/group';
import { takesValue } from './unknown-command';

type Group = 'local' | 'runbook';

/**
 * Declares `mesh local` and `mesh runbook` and adds the verbs of the group the command line names. The
 * verbs' modules load zod and the schemas; `mesh --help`, `mesh config` and the other group do not need
 * them. As `mesh-runbook` (the plugin), a command line that names no other group is a runbook verb's.
 */
export function registerGroups(program: Command, args: readonly string[], asPlugin: boolean): void {
  const local = declareLocal(program);
  const runbook = declareRunbook(program);
  const named = groupNamed(program, args, asPlugin);
  if (named === 'local') (require('./local') as typeof Local).addLocalVerbs(local);
  if (named === 'runbook') (require('./runbook') as typeof Runbook).addRunbookVerbs(runbook);
}

function groupNamed(program: Command, args: readonly string[], asPlugin: boolean): Group | undefined {
  const word = firstOperand(program, args);
  if (word === 'local' || word === 'runbook') return word;
  return asPlugin && word !== undefined && word !== 'config' ? 'runbook' : undefined;
}

/** The first word of `args` that is neither an option nor an option's value; after `help`, the word it asks about. */
function firstOperand(program: Command, args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const word = args[i] ?? '';
    if (word === '--') return args[i + 1];
    if (!word.startsWith('-')) return word === 'help' ? args[i + 1] : word;
    if (takesValue(program, word)) i++;
  }
  return undefined;
}
