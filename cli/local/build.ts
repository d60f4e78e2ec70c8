import type { Command } from 'commander';
import { z } from 'zod';
import { EXIT } from '../errors';
import { printJson, printLine } from '../output';
import { localMeshFor, ModuleName, parseInput } from './context';

const Input = z.object({ module: ModuleName, json: z.boolean().default(false) });

export function registerBuild(local: Command): void {
  local
    .command('build <module>')
    .description("rebuild the module's images; under the roll-out policy this recreates its containers")
    .option('--json', 'print what was rebuilt and recreated as JSON')
    .action(async (module: string, options: object, command: Command) => {
      const input = parseInput(Input, { module, ...options });
      const result = await localMeshFor(command).build(input.module);
      if (result.failed.length > 0) process.exitCode = EXIT.failure;
      if (input.json) return printJson(result);
      for (const image of result.images) {
        printLine(`rebuilt ${image.image}: build ${image.build}, image ${image.imageId.slice(7, 19)}`);
      }
      if (result.upgradePolicy !== 'roll-out')
        printLine(`upgrade policy ${result.upgradePolicy}: no container recreated`);
      for (const done of result.recreated) printLine(`recreated ${done.name} on ${done.node} (roll-out)`);
      for (const failed of result.failed)
        printLine(`failed to recreate ${failed.container} on ${failed.node}: ${failed.error}`);
      if (result.upgradePolicy === 'roll-out' && result.recreated.length + result.failed.length === 0) {
        printLine('upgrade policy roll-out: no running container of this module to recreate');
      }
    });
}
