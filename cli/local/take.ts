import type { Command } from 'commander';
import { z } from 'zod';
import { printJson, printLine } from '../output';
import { localMeshFor, ModuleName, NodeName, parseInput } from './context';

const Input = z.object({ module: ModuleName, node: NodeName, json: z.boolean().default(false) });

export function registerTake(local: Command): void {
  local
    .command('take <module> <node>')
    .description("on an adopted node, mesh now owns the module's data already on disk (from the next push)")
    .option('--json', 'print the result as JSON')
    .action(async (module: string, node: string, options: object, command: Command) => {
      const input = parseInput(Input, { module, node, ...options });
      await localMeshFor(command).take(input.module, input.node);
      if (input.json) printJson({ module: input.module, node: input.node, taken: true });
      else printLine(`took ${input.module} on ${input.node}; its holds lift on the next push`);
    });
}
