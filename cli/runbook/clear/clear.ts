import type { Command } from 'commander';
import { z } from 'zod';
import { operator, resolveRunbookId } from '../kinds';
import { load } from '../lazy';
import { parseOptions } from '../options';

const Input = z.object({
  node: z.string().min(1),
  reason: z.string(),
  as: z.string().min(1).optional(),
  json: z.boolean().default(false),
});

export function registerClear(runbook: Command): void {
  runbook
    .command('clear <node>')
    .description(
      'record that a person looked at a node whose last runbook could not roll back, so runbooks may start there again; refused (exit 2) when there is nothing to clear',
    )
    .requiredOption('--reason <text>', 'what you found on the node and what you did about it, for the record')
    .option('--as <user>', 'who clears it (default: your OS user)')
    .option('--json', 'print the clearance as JSON')
    .action(async (node: string, options: object) => {
      const input = parseOptions(Input, { node, ...options }, ['node']);
      const id = resolveRunbookId(input.node);
      const { clear } = load.clear();
      await clear({
        id,
        reason: input.reason,
        by: operator(input.as),
        identity: input.as !== undefined ? 'as-flag' : 'os-user',
        json: input.json,
      });
    });
}
