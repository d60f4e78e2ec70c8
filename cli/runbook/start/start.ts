import type { Command } from 'commander';
import { RUNBOOK_KINDS, type RunbookKind } from '../../../workflows/contracts';
import { UsageError } from '../../errors';
import { closest, onUnknownSubcommand } from '../../unknown-command';
import { kindList } from '../kinds';
import { registerStartDataPathMove } from './data-path-move';
import { registerStartEdgeFlip } from './edge-flip';

/** The kinds this CLI can start; a kind in the contracts without a `start` subcommand is not startable yet. */
const STARTABLE: readonly RunbookKind[] = ['edge-flip', 'data-path-move'];

export function registerStart(runbook: Command): void {
  const start = runbook
    .command('start')
    .description(`start a runbook on a node: ${kindList(STARTABLE)}`)
    .argument('[kind]', `the kind of runbook (${kindList()})`)
    .allowUnknownOption()
    .allowExcessArguments()
    .action((kind: string | undefined) => {
      throw unknownKind(kind);
    });
  onUnknownSubcommand(start, unknownKind);
  registerStartEdgeFlip(start);
  registerStartDataPathMove(start);
}

function unknownKind(kind: string | undefined): UsageError {
  const meant = kind === undefined ? undefined : closest(kind, STARTABLE);
  const suggestion = meant
    ? `Did you mean \`mesh runbook start ${meant}\`?`
    : `See its options with \`mesh runbook start ${STARTABLE[0]} --help\`.`;
  if (kind === undefined)
    return new UsageError(`Name the kind of runbook to start: ${kindList(STARTABLE)}.`, suggestion);
  if ((RUNBOOK_KINDS as readonly string[]).includes(kind))
    return new UsageError(
      `${kind} runbooks cannot be started from this CLI yet; it starts ${kindList(STARTABLE)}.`,
      suggestion,
    );
  return new UsageError(
    `There is no runbook kind "${kind}"; the kinds are ${kindList()} (this CLI starts ${kindList(STARTABLE)}).`,
    suggestion,
  );
}
