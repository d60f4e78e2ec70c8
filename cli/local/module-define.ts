import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type * as Yaml from 'yaml';
import { z } from 'zod';
import type { ModuleSpecInput } from '../../mesh/schemas';
import { UsageError } from '../errors';
import { printJson, printLine } from '../output';
import { localMeshFor, parseInput, plural } from './context';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on use: only this verb reads YAML
const yaml = () => require('yaml') as typeof Yaml;

const Input = z.object({ file: z.string().min(1), json: z.boolean().default(false) });

/** A module file in YAML or JSON (JSON is YAML); the spec itself is checked by the mesh. */
async function readModuleFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `Cannot read module file ${file}: ${(error as Error).message}.`,
      'Give the path of a YAML or JSON module spec.',
    );
  }
  try {
    return yaml().parse(text) as unknown;
  } catch (error) {
    throw new UsageError(
      `Module file ${file} is not YAML or JSON: ${(error as Error).message}`,
      'Fix the file and run the command again.',
    );
  }
}

export function registerModuleDefine(modules: Command): void {
  modules
    .command('define <file>')
    .description('define or replace a module from a YAML or JSON spec (takes effect on the next push)')
    .option('--json', 'print the module spec as JSON')
    .action(async (file: string, options: object, command: Command) => {
      const input = parseInput(Input, { file, ...options });
      const spec = await localMeshFor(command).defineModule(
        (await readModuleFile(input.file)) as ModuleSpecInput,
      );
      if (input.json) return printJson(spec);
      printLine(
        `defined module ${spec.module}: ${plural(spec.containers.length, 'container')}, ` +
          `${plural(spec.dataDirs.length, 'data dir')}, upgrade policy ${spec.upgradePolicy}`,
      );
    });
}
