import type { Command } from 'commander';
import { z } from 'zod';
import { printJson, printLine } from '../output';
import { localMeshFor, NodeName, parseInput } from './context';
import { formatNodeState } from './format';

const Input = z.object({ node: NodeName, json: z.boolean().default(false) });

export function registerNodeShow(nodes: Command): void {
  nodes
    .command('show <node>')
    .description("a node's assignments, takes, last apply and its own holds with their reasons")
    .option('--json', 'print the node state as JSON')
    .action(async (node: string, options: object, command: Command) => {
      const input = parseInput(Input, { node, ...options });
      const state = await localMeshFor(command).nodeState(input.node);
      if (input.json) return printJson(state);
      formatNodeState(state).forEach((line) => printLine(line));
    });
}
