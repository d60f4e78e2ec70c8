import type { Command } from 'commander';
import { z } from 'zod';
import { checkMovePaths, MovePathError } from '../../../activities/data/paths';
import { DataPathMoveInput, type DataPathMoveInputArg } from '../../../workflows/contracts';
import { UsageError } from '../../errors';
import { operator } from '../kinds';
import { load } from '../lazy';
import { parseOptions } from '../options';
import { addFleetRuleOptions, FleetOptionsSchema } from './fleet-command';
import { asksForFleet } from './fleet-options';
import { firstIssue } from '../../../base/zod-issue';

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The options `start data-path-move` shares with `plan data-path-move`. */
export const DataPathMoveOptions = z.object({
  node: z.string(),
  module: z.string(),
  from: z.string(),
  to: z.string(),
  container: z.array(z.string()).default([]),
  nodes: z.string().optional(),
  as: z.string().min(1).optional(),
  json: z.boolean().default(false),
});

const Options = DataPathMoveOptions.extend({
  ...FleetOptionsSchema.omit({ nodes: true, allNodesWith: true }).shape,
  node: z.string().optional(),
  key: z.string().min(1).optional(),
  detach: z.boolean().default(false),
  yes: z.boolean().default(false),
});
export type DataPathMoveStartOptions = z.infer<typeof Options>;

/** `--nodes a,b`: every node the module is assigned to, the runbook's own `--node` among them. */
function nodeList(node: string, nodes: string | undefined): string[] {
  if (nodes === undefined) return [];
  const named = nodes.split(',').map((n) => n.trim());
  if (named.some((n) => n === ''))
    throw new UsageError(
      `--nodes "${nodes}" has an empty name; give the node names separated by commas.`,
      `For example --nodes ${node},forge2.`,
    );
  if (!named.includes(node))
    throw new UsageError(
      `--nodes ${nodes} leaves out --node ${node}; the runbook runs on ${node} and moves the data of every node named.`,
      `Add it: --nodes ${[node, ...named].join(',')}.`,
    );
  return [...new Set(named)];
}

/** The workflow input from the options; path mistakes are refused here, before anything starts. */
export function dataPathMoveInputFrom(options: z.infer<typeof DataPathMoveOptions>, startedBy: string) {
  let paths: { from: string; to: string };
  try {
    paths = checkMovePaths(options.from, options.to);
  } catch (error) {
    if (error instanceof MovePathError) {
      throw new UsageError(
        error.message,
        error.problem === 'too-long'
          ? 'Give paths the system can hold, e.g. --from /srv/forge --to /var/lib/forge.'
          : 'Give two distinct absolute paths, neither inside the other, e.g. --from /srv/forge --to /var/lib/forge.',
      );
    }
    throw error;
  }
  const raw: DataPathMoveInputArg = {
    node: options.node,
    nodes: nodeList(options.node, options.nodes),
    module: options.module,
    ...paths,
    containers: options.container,
    startedBy,
  };
  const parsed = DataPathMoveInput.safeParse(raw);
  if (!parsed.success) {
    const { path, problem } = firstIssue(parsed.error);
    const field = String(path[0] ?? 'input');
    const option = field === 'containers' ? 'container' : field;
    const example = ['from', 'to'].includes(field)
      ? 'Give the path as plain printable text, e.g. --from /srv/forge --to /var/lib/forge.'
      : 'Names use lower-case letters, digits and dashes, e.g. --node forge1 --module forge.';
    throw new UsageError(`--${option} is invalid: ${problem}.`, example);
  }
  return parsed.data;
}

export function registerStartDataPathMove(start: Command): Command {
  const command = start
    .command('data-path-move')
    .description(
      "move a module's data to a new host path; containers must be recreated on it, the old data stays until approved",
    )
    .option('--node <node>', 'the node the data lives on (for a fleet: --nodes)')
    .requiredOption('--module <module>', 'the module whose data moves')
    .requiredOption('--from <path>', 'the host path the data is on now')
    .requiredOption('--to <path>', 'the host path it moves to (absent or empty)')
    .option(
      '--container <name>',
      'a container expected to mount --from (repeat for each; default: whatever mounts it)',
      collect,
    )
    .option(
      '--nodes <a,b>',
      "every node the module is assigned to (its spec is the module's, so a move changes them all; one left out is refused). Without --node: a fleet, one move per node on its own worker, the first (or --canary) alone first, then waves. With --node among them: one runbook that moves every node at once",
    )
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
  return addFleetRuleOptions(command, 'moves').action(async (options: object) => {
    const opts = parseOptions(Options, { ...options });
    const node = singleMoveNode(opts);
    if (node === undefined)
      return load.moveFleet().launchMoveFleet({ ...opts, nodes: opts.nodes ?? '' }, operator(opts.as));
    const input = dataPathMoveInputFrom({ ...opts, node }, operator(opts.as));
    const { launch } = load.launch();
    await launch(load.workflows().dataPathMove, input, opts);
  });
}

/** The node a single move runs on (all named nodes at once with --nodes); undefined for a fleet. */
function singleMoveNode(options: z.infer<typeof Options>): string | undefined {
  const rules = asksForFleet({ ...options, nodes: undefined });
  if (options.node !== undefined && rules)
    throw new UsageError(
      `--node ${options.node} starts one runbook, and the fleet options (--canary, --wave-size, --approvals, --max-failures, --max-parallel, --history-bound) are a fleet's; give one or the other.`,
      `For a fleet leave out --node: --nodes ${options.nodes ?? `${options.node},<other nodes>`}.`,
    );
  if (options.node === undefined && options.nodes === undefined)
    throw new UsageError(
      'Name the node whose data moves with --node, or a fleet with --nodes a,b,c.',
      'For example --node forge1, or --nodes forge1,forge2,forge3 (the first is the canary).',
    );
  return options.node;
}
