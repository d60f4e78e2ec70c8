import type { Command } from 'commander';
import { operator } from '../kinds';
import { parseOptions } from '../options';
import { dataPathMoveInputFrom, DataPathMoveOptions } from '../start/data-path-move';
import type { ShowPlan } from '../operator-kinds';
import { EXIT_CODES } from './print-plan';

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `mesh runbook plan data-path-move`: the options of `start data-path-move`. */
export function registerPlanDataPathMove(plan: Command, show: ShowPlan): void {
  plan
    .command('data-path-move')
    .description('predict a data-path move: the same options as `mesh runbook start data-path-move`')
    .requiredOption('--node <node>', 'the node the data lives on')
    .requiredOption('--module <module>', 'the module whose data would move')
    .requiredOption('--from <path>', 'the host path the data is on now')
    .requiredOption('--to <path>', 'the host path it would move to')
    .option('--container <name>', 'a container expected to mount --from (repeat for each)', collect)
    .option('--nodes <a,b>', 'every node the module is assigned to, --node among them')
    .option('--as <user>', 'who would start the runbook (default: your OS user)')
    .option('--json', 'print the plan as one JSON document')
    .addHelpText('after', EXIT_CODES)
    .action(async (options: object) => {
      const opts = parseOptions(DataPathMoveOptions, { ...options });
      const input = dataPathMoveInputFrom(opts, operator(opts.as));
      await show(input, opts.json);
    });
}
