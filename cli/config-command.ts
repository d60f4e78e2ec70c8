import type { Command } from 'commander';
import type * as Yaml from 'yaml';
import type * as Zod from 'zod';
import type * as Config from '../config';
import { UsageError } from './errors';
import { printJson, printLine } from './output';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on use: only this verb prints YAML
const yaml = () => require('yaml') as typeof Yaml;

/* eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on use, like cli/runbook/lazy.ts */
const config = () => require('../config') as typeof Config;

/**
 * Commands that never stop for a broken config: the local mesh's own verbs, which do not read it, and the
 * completion, which offers no runbooks then.
 */
const WITHOUT_CONFIG = new Set(['local', 'completion']);

/** The effective config; a bad file or variable is the operator's mistake: one sentence, exit 2. */
export function effectiveConfig(): Config.MeshConfig {
  const { ConfigError, loadConfig } = config();
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message, error.suggestion);
    throw error;
  }
}

/** Built on use: `mesh --help` loads no zod. */
function parseInput(options: object): { json: boolean } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
  const { z } = require('zod') as typeof Zod;
  return z.object({ json: z.boolean().default(false) }).parse({ ...options });
}

/**
 * The global `--config <file>` (the same as MESH_CONFIG, which it sets for this process and the workers it
 * starts), a check of the config before any command that uses it runs, and `mesh config`.
 */
export function registerConfigCommands(program: Command): void {
  program.option('--config <file>', 'the mesh config file, YAML or JSON (default: $MESH_CONFIG)');
  program.hook('preAction', (_program, action) => {
    const file = program.opts<{ config?: string }>().config;
    if (file !== undefined) process.env[config().CONFIG_ENV] = file;
    if (!WITHOUT_CONFIG.has(topLevelName(action))) effectiveConfig();
  });
  program
    .command('config')
    .description(
      'print the effective config (the file, then environment overrides) with every secret redacted',
    )
    .option('--json', 'print it as JSON')
    .action((options: object) => {
      const input = parseInput(options);
      const shown = config().redactConfig(effectiveConfig());
      if (input.json) return printJson(shown);
      printLine(
        `# effective mesh config: ${shown.file ?? 'no config file'}, environment overrides applied, secrets redacted`,
      );
      process.stdout.write(yaml().stringify(shown, { lineWidth: 0 }));
    });
}

function topLevelName(command: Command): string {
  let current = command;
  while (current.parent?.parent) current = current.parent;
  return current.name();
}
