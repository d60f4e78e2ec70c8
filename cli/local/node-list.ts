import type { Command } from 'commander';
import { z } from 'zod';
import { printJson, printLine } from '../output';
import { localMeshFor, parseInput } from './context';
import { listOrNone } from './format';

const Input = z.object({ json: z.boolean().default(false) });

export function registerNodeList(nodes: Command): void {
  nodes
    .command('list')
    .description('every local node, with what it holds')
    .option('--json', 'print the node states as JSON')
    .action(async (options: object, command: Command) => {
      const input = parseInput(Input, options);
      const states = await localMeshFor(command).listNodes();
      if (input.json) return printJson(states);
      if (states.length === 0)
        return printLine('no nodes yet; create one with `mesh local node create <node>`');
      for (const state of states) {
        const last = state.lastApply
          ? `last push ${state.lastApply.pushId}: applied ${state.lastApply.applied}, held ${state.holds.length}`
          : 'never applied';
        printLine(
          `${state.node}  ${state.adopted ? 'adopted' : 'new'}  assigned: ${listOrNone(state.assigned)}  ` +
            `taken: ${listOrNone(state.taken)}  ${last}`,
        );
      }
    });
}
