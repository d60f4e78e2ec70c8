import type { Command } from 'commander';
import { z } from 'zod';
import { printJson, printLine } from '../output';
import { localMeshFor, parseInput, plural } from './context';

const Input = z.object({ json: z.boolean().default(false) });

export function registerModuleList(modules: Command): void {
  modules
    .command('list')
    .description('every defined module')
    .option('--json', 'print the module specs as JSON')
    .action(async (options: object, command: Command) => {
      const input = parseInput(Input, options);
      const specs = await localMeshFor(command).listModules();
      if (input.json) return printJson(specs);
      if (specs.length === 0)
        return printLine('no modules yet; define one with `mesh local module define <file>`');
      for (const spec of specs) {
        printLine(
          `${spec.module}  ${plural(spec.containers.length, 'container')}  upgrade policy ${spec.upgradePolicy}`,
        );
      }
    });
}
