import { resolve } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { printJson, printLine } from '../output';
import { localMeshFor, NodeName, parseInput } from './context';

const Input = z.object({
  node: NodeName,
  adopted: z.boolean().default(false),
  hostRoot: z.string().min(1).optional(),
  json: z.boolean().default(false),
});

export function registerNodeCreate(nodes: Command): void {
  nodes
    .command('create <node>')
    .description('create a local node (idempotent for the same options)')
    .option('--adopted', 'the node existed before mesh: data found on it is held until its module is taken')
    .option(
      '--host-root <dir>',
      "where the node's host paths live here (default: <state-dir>/nodes/<node>/root)",
    )
    .option('--json', 'print the node state as JSON')
    .action(async (node: string, options: object, command: Command) => {
      const input = parseInput(Input, { node, ...options });
      const state = await localMeshFor(command).createNode(input.node, {
        adopted: input.adopted,
        ...(input.hostRoot === undefined ? {} : { hostRoot: resolve(input.hostRoot) }),
      });
      if (input.json) return printJson(state);
      printLine(
        `node ${state.node} ready (${state.adopted ? 'adopted' : 'not adopted'}), host paths under ${state.hostRoot}`,
      );
    });
}
