import type { Command } from 'commander';
import { z } from 'zod';
import { decideAs } from './decide-as';
import { parseOptions } from './options';

const Input = z.object({
  id: z.string().min(1),
  action: z.string().min(1),
  gate: z.string().min(1).optional(),
  as: z.string().min(1).optional(),
  comment: z.string().min(1).optional(),
  json: z.boolean().default(false),
});

export function registerDecide(runbook: Command): void {
  runbook
    .command('decide <id> <action>')
    .description(
      'answer the gate a runbook waits at with one of its actions (take, retry, recheck, recreate, abort, ...)',
    )
    .option(
      '--gate <gate>',
      'the gate you decide on; refused if the runbook waits elsewhere (default: where it waits)',
    )
    .option('--as <user>', 'who decides (default: your OS user)')
    .option('--comment <text>', 'why, for the record')
    .option('--json', 'print the recorded decision and the next status as JSON')
    .action(async (id: string, action: string, options: object) => {
      const input = parseOptions(Input, { id, action, ...options }, ['id', 'action']);
      await decideAs(input);
    });
}
