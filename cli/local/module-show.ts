import type { Command } from 'commander';
import type * as Yaml from 'yaml';
import { z } from 'zod';
import { printJson, printLine } from '../output';
import { localMeshFor, ModuleName, parseInput } from './context';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on use: only this verb prints YAML
const yaml = () => require('yaml') as typeof Yaml;

const Input = z.object({ module: ModuleName, json: z.boolean().default(false) });

export function registerModuleShow(modules: Command): void {
  modules
    .command('show <module>')
    .description("a module's current spec")
    .option('--json', 'print the module spec as JSON')
    .action(async (module: string, options: object, command: Command) => {
      const input = parseInput(Input, { module, ...options });
      const spec = await localMeshFor(command).moduleSpec(input.module);
      if (input.json) return printJson(spec);
      printLine(yaml().stringify(spec).trimEnd());
    });
}
