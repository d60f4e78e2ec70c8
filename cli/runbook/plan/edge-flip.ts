import type { Command } from 'commander';
import { z } from 'zod';
import { operator } from '../kinds';
import { load } from '../lazy';
import { parseOptions } from '../options';
import { EdgeFlipOptions, edgeFlipInputFrom } from '../start/edge-flip-input';
import { addEdgeFlipOptions } from '../start/edge-flip-options';
import { addFleetOptions, FleetOptionsSchema, singleNode } from '../start/fleet-command';
import type { ShowPlan } from '../operator-kinds';
import { EXIT_CODES } from './print-plan';

const EdgeFlipPlanOptions = FleetOptionsSchema.extend({
  ...EdgeFlipOptions.shape,
  node: z.string().optional(),
  as: z.string().min(1).optional(),
  json: z.boolean().default(false),
});

/** `mesh runbook plan edge-flip`: the options of `start edge-flip`, a fleet's too. */
export function registerPlanEdgeFlip(plan: Command, show: ShowPlan): void {
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
    await show(input, opts.json);
  });
}
