import type { Command } from 'commander';
import { z } from 'zod';
import { printJson, printLine } from '../../output';
import { forTerminal } from '../../terminal-text';
import { onUnknownSubcommand } from '../../unknown-command';
import { operator } from '../kinds';
import { load } from '../lazy';
import { parseOptions } from '../options';
import { dataPathMoveInputFrom, DataPathMoveOptions } from '../start/data-path-move';
import { EdgeFlipOptions, edgeFlipInputFrom } from '../start/edge-flip-input';
import { addEdgeFlipOptions } from '../start/edge-flip-options';
import { addFleetOptions, FleetOptionsSchema, singleNode } from '../start/fleet-command';
import { unknownPlanKind } from './unknown-kind';

const collect = (value: string, previous: string[] = []) => [...previous, value];

const EdgeFlipPlanOptions = FleetOptionsSchema.extend({
  ...EdgeFlipOptions.shape,
  node: z.string().optional(),
  as: z.string().min(1).optional(),
  json: z.boolean().default(false),
});

const EXIT_CODES =
  '\nExit codes: 0 every gate is predicted ok, 3 a gate is predicted to wait for a decision, 2 preflight would refuse the runbook (or bad input), 1 the plan could not be made; a fleet: the worst of its nodes.\n' +
  '--json prints the plan as one document (client/plan, schema PlanReport in workflows/plan-report.ts).';

/** `mesh runbook plan <kind> ...`: the options of `start <kind>`; prints what the runbook would do, starts nothing. */
export function registerPlan(runbook: Command): void {
  const plan = runbook
    .command('plan')
    .description(
      'predict, without changing anything, every step and gate of a runbook on the node as it is now',
    )
    .argument('[kind]', 'edge-flip or data-path-move')
    .allowUnknownOption()
    .allowExcessArguments()
    .action((kind: string | undefined) => {
      throw unknownPlanKind(kind);
    });
  onUnknownSubcommand(plan, unknownPlanKind);

  const edgeFlip = plan
    .command('edge-flip')
    .description(
      'predict an edge flip: the same options as `mesh runbook start edge-flip`, a fleet (--nodes, --all-nodes-with) too',
    )
    .option(
      '--node <node>',
      'the node whose edge would be flipped (for a fleet: --nodes or --all-nodes-with)',
    );
  addEdgeFlipOptions(edgeFlip)
    .option('--as <user>', 'who would start the runbook (default: your OS user)')
    .option('--json', "print the plan as one JSON document (a fleet: one document with each node's plan)")
    .addHelpText('after', EXIT_CODES);
  addFleetOptions(edgeFlip).action(async (options: object) => {
    const opts = parseOptions(EdgeFlipPlanOptions, { ...options });
    const node = singleNode(opts);
    if (node === undefined) return load.fleetPlan().printFleetPlan(opts, operator(opts.as), opts.json);
    const input = edgeFlipInputFrom({ ...opts, node }, operator(opts.as));
    await printPlan({ kind: 'edge-flip', input }, opts.json);
  });

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
      await printPlan({ kind: 'data-path-move', input }, opts.json);
    });
}

async function printPlan(request: Parameters<ReturnType<typeof load.plan>['planFor']>[0], json: boolean) {
  const { planFor, planAsLines } = load.plan();
  const report = await planFor(request);
  if (json) printJson(report);
  else for (const line of planAsLines(forTerminal(report))) printLine(line);
  process.exitCode = report.exitCode;
}
