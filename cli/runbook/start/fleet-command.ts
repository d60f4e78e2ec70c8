import type { Command } from 'commander';
import { z } from 'zod';
import { UsageError } from '../../errors';
import { asksForFleet, type FleetOptions } from './fleet-options';

/** The options `start edge-flip` takes for a fleet, beside a single start's. */
export const FleetOptionsSchema = z.object({
  nodes: z.string().optional(),
  allNodesWith: z.string().optional(),
  canary: z.string().optional(),
  waveSize: z.string().optional(),
  approvals: z.string().optional(),
  maxFailures: z.string().optional(),
  maxParallel: z.string().optional(),
  historyBound: z.string().optional(),
});

export function addFleetOptions(command: Command): Command {
  command
    .option(
      '--nodes <a,b,c>',
      'a fleet: one runbook per node, run by one fleet runbook; the first node (or --canary) alone first, then waves; addresses may hold {node} or be node=url pairs (a=http://..,b=http://..)',
    )
    .option('--all-nodes-with <module>', 'a fleet of every node the module is assigned to (as mesh says)');
  return addFleetRuleOptions(command, 'flips');
}

/** How a fleet runs its nodes after the canary: the options both kinds of fleet take. */
export function addFleetRuleOptions(command: Command, does: 'flips' | 'moves'): Command {
  return command
    .option('--canary <node>', `the fleet's node that ${does} first, alone (default: the first)`)
    .option('--wave-size <count>', `how many nodes a fleet ${does} at once after the canary (default 1)`)
    .option(
      '--approvals <policy>',
      "who approves a fleet's later nodes: canary-then-waves (default: after the canary, one approval for the rest, each node clean at every gate's first look; any other asks its own), canary-only (the canary's approval stands for them), each-node",
    )
    .option(
      '--max-failures <count>',
      'later nodes that may fail or roll back before the fleet stops starting others and waits (default 0; the canary always pauses it)',
    )
    .option(
      '--max-parallel <count>',
      "at most this many of a wave's nodes run at once (default: the whole wave)",
    )
    .option(
      '--history-bound <events>',
      'history events one run of the fleet stays under; past half of it the fleet continues as new between node starts (default 10000; at least 100)',
    );
}

/** The one node a single start flips; undefined for a fleet. Both, or neither: one sentence, exit 2. */
export function singleNode(options: FleetOptions & { node?: string | undefined }): string | undefined {
  const fleet = asksForFleet(options);
  if (options.node !== undefined && fleet)
    throw new UsageError(
      `--node ${options.node} starts one node's runbook, and the fleet options start a fleet; give one or the other.`,
      `Put ${options.node} in --nodes (e.g. --nodes ${options.node},<other nodes>), or leave out the fleet options.`,
    );
  if (options.node === undefined && !fleet)
    throw new UsageError(
      'Name the node to flip with --node, or a fleet with --nodes a,b,c or --all-nodes-with <module>.',
      'For example --node novox, or --nodes edge1,novox,edge3.',
    );
  return options.node;
}
