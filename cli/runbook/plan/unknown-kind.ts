import { RUNBOOK_KINDS } from '../../../workflows/kinds';
import { UsageError } from '../../errors';
import { closest } from '../../unknown-command';
import { kindList } from '../kinds';

/** `mesh runbook plan` without a kind, or with one that does not exist. */
export function unknownPlanKind(
  kind: string | undefined,
  kinds: readonly string[] = RUNBOOK_KINDS,
): UsageError {
  const meant = kind === undefined ? undefined : closest(kind, kinds);
  const suggestion = meant
    ? `Did you mean \`mesh runbook plan ${meant}\`?`
    : `Give the options you would give \`mesh runbook start\`, e.g. \`mesh runbook plan ${kinds[0] ?? '<kind>'} --help\`.`;
  if (kind === undefined)
    return new UsageError(`Name the kind of runbook to plan: ${kindList(kinds)}.`, suggestion);
  return new UsageError(`There is no runbook kind "${kind}"; the kinds are ${kindList(kinds)}.`, suggestion);
}
