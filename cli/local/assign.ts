import type { Command } from 'commander';
import { z } from 'zod';
import { printJson, printLine } from '../output';
import { localMeshFor, ModuleName, NodeName, parseInput } from './context';

const Input = z.object({ module: ModuleName, node: NodeName, json: z.boolean().default(false) });

export function registerAssign(local: Command): void {
  local
    .command('assign <module> <node>')
    .description('module should run on node (takes effect on the next push)')
    .option('--json', 'print the result as JSON')
    .action(async (module: string, node: string, options: object, command: Command) => {
      const input = parseInput(Input, { module, node, ...options });
      await localMeshFor(command).assign(input.module, input.node);
      if (input.json) printJson({ module: input.module, node: input.node, assigned: true });
      else printLine(`assigned ${input.module} to ${input.node}; push ${input.node} to apply it`);
    });
}
