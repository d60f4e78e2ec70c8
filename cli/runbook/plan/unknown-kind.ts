import { RUNBOOK_KINDS } from '../../../workflows/contracts';
import { UsageError } from '../../errors';
import { closest } from '../../unknown-command';
import { kindList } from '../kinds';

/** `mesh runbook plan` without a kind, or with one that does not exist. */
export function unknownPlanKind(kind: string | undefined): UsageError {
  const meant = kind === undefined ? undefined : closest(kind, RUNBOOK_KINDS);
  const suggestion = meant
    ? `Did you mean \`mesh runbook plan ${meant}\`?`
    : 'Give the options you would give `mesh runbook start`, e.g. `mesh runbook plan edge-flip --help`.';
  if (kind === undefined)
    return new UsageError(`Name the kind of runbook to plan: ${kindList()}.`, suggestion);
  return new UsageError(`There is no runbook kind "${kind}"; the kinds are ${kindList()}.`, suggestion);
}
