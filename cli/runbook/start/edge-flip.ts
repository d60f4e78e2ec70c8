import type { Command } from 'commander';
import { z } from 'zod';
import { operator } from '../kinds';
import { load } from '../lazy';
import { parseOptions } from '../options';
import { EdgeFlipOptions, edgeFlipInputFrom } from './edge-flip-input';
import { addEdgeFlipOptions } from './edge-flip-options';
import { addFleetOptions, FleetOptionsSchema, singleNode } from './fleet-command';

const Options = FleetOptionsSchema.extend({
  ...EdgeFlipOptions.shape,
  node: z.string().optional(),
  as: z.string().min(1).optional(),
  key: z.string().min(1).optional(),
  detach: z.boolean().default(false),
  yes: z.boolean().default(false),
  json: z.boolean().default(false),
});

export function registerStartEdgeFlip(start: Command): Command {
  const command = start
    .command('edge-flip')
    .description("replace a node's edge proxy with its successor; the predecessor stops only after approval")
    .option('--node <node>', 'the node whose edge is flipped (for a fleet: --nodes or --all-nodes-with)');
  addEdgeFlipOptions(command)
    .option('--as <user>', 'who starts the runbook (default: your OS user)')
    .option(
      '--key <file>',
      'sign the start with this SSH key (kind, node, module and the input), as a policy with signed gates requires; default: $MESH_SIGNING_KEY',
    )
    .option('--detach', 'start it and return; do not follow it')
    .option('--yes', 'start without asking on a terminal (the plan is shown either way)')
    .option(
      '--json',
      'print JSON: the started runbook with --detach, else JSON lines as it goes (the last one has its final status)',
    );
  return addFleetOptions(command).action(async (options: object) => {
    const opts = parseOptions(Options, { ...options });
    const node = singleNode(opts);
    if (node === undefined) return load.fleet().launchFleet(opts, operator(opts.as));
    const input = edgeFlipInputFrom({ ...opts, node }, operator(opts.as));
    const { launch } = load.launch();
    await launch(load.workflows().edgeFlip, input, opts);
  });
}
