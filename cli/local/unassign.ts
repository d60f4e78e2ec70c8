import type { Command } from 'commander';
import { z } from 'zod';
import { printJson, printLine } from '../output';
import { localMeshFor, ModuleName, NodeName, parseInput } from './context';

const Input = z.object({ module: ModuleName, node: NodeName, json: z.boolean().default(false) });

export function registerUnassign(local: Command): void {
  local
    .command('unassign <module> <node>')
    .description('module should no longer run on node; the next push removes its containers (data stays)')
    .option('--json', 'print the result as JSON')
    .action(async (module: string, node: string, options: object, command: Command) => {
      const input = parseInput(Input, { module, node, ...options });
      await localMeshFor(command).unassign(input.module, input.node);
      if (input.json) printJson({ module: input.module, node: input.node, assigned: false });
      else
        printLine(
          `unassigned ${input.module} from ${input.node}; the next push removes its containers (data stays)`,
        );
    });
}
