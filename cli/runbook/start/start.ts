import type { Command } from 'commander';
import { UsageError } from '../../errors';
import { closest, onUnknownSubcommand } from '../../unknown-command';
import { kindList } from '../kinds';
import { load } from '../lazy';
import { OPERATOR_KINDS, type OperatorRegistry } from '../operator-kinds';

/** `mesh runbook start <kind>`: one subcommand per kind in the registry. */
export function registerStart(runbook: Command, registry: OperatorRegistry = OPERATOR_KINDS): void {
  const kinds = registry.map((kind) => kind.descriptor.kind);
  const start = runbook
    .command('start')
    .description(`start a runbook on a node: ${kindList(kinds)}`)
    .argument('[kind]', `the kind of runbook (${kindList(kinds)})`)
    .allowUnknownOption()
    .allowExcessArguments()
    .action((kind: string | undefined) => {
      throw unknownKind(kind, kinds);
    });
  onUnknownSubcommand(start, (kind) => unknownKind(kind, kinds));
  for (const kind of registry)
    kind.registerStart(start).addHelpText('after', () => `\n${load.plans().planHelp(kind.descriptor.plan)}`);
}

function unknownKind(kind: string | undefined, kinds: readonly string[]): UsageError {
  const meant = kind === undefined ? undefined : closest(kind, kinds);
  const suggestion = meant
    ? `Did you mean \`mesh runbook start ${meant}\`?`
    : `See its options with \`mesh runbook start ${kinds[0] ?? '<kind>'} --help\`.`;
  if (kind === undefined)
    return new UsageError(`Name the kind of runbook to start: ${kindList(kinds)}.`, suggestion);
  return new UsageError(`There is no runbook kind "${kind}"; the kinds are ${kindList(kinds)}.`, suggestion);
}
