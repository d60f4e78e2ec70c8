import type { Command } from 'commander';
import { onUnknownSubcommand } from '../../unknown-command';
import { kindList } from '../kinds';
import { OPERATOR_KINDS, type OperatorRegistry } from '../operator-kinds';
import { printPlan } from './print-plan';
import { unknownPlanKind } from './unknown-kind';

/** `mesh runbook plan <kind> ...`: the options of `start <kind>`; prints what the runbook would do, starts nothing. */
export function registerPlan(runbook: Command, registry: OperatorRegistry = OPERATOR_KINDS): void {
  const kinds = registry.map((kind) => kind.descriptor.kind);
  const plan = runbook
    .command('plan')
    .description(
      'predict, without changing anything, every step and gate of a runbook on the node as it is now',
    )
    .argument('[kind]', kindList(kinds, 'or'))
    .allowUnknownOption()
    .allowExcessArguments()
    .action((kind: string | undefined) => {
      throw unknownPlanKind(kind, kinds);
    });
  onUnknownSubcommand(plan, (kind) => unknownPlanKind(kind, kinds));
  for (const kind of registry)
    kind.registerPlan(plan, (input, json) => printPlan(kind.descriptor.kind, input, json, registry));
}
