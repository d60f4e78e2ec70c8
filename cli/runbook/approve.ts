import type { Command } from 'commander';
import { z } from 'zod';
import { decideAs } from './decide-as';
import { parseOptions } from './options';

const Input = z.object({
  id: z.string().min(1),
  gate: z.string().min(1),
  as: z.string().min(1).optional(),
  comment: z.string().min(1).optional(),
  json: z.boolean().default(false),
});

export function registerApprove(runbook: Command): void {
  runbook
    .command('approve <id> <gate>')
    .description(
      'approve the gate a runbook waits at (e.g. approve-stop-predecessor); refused unless it waits there',
    )
    .option('--as <user>', 'who approves (default: your OS user)')
    .option('--comment <text>', 'why, for the record')
    .option('--json', 'print the recorded decision and the next status as JSON')
    .action(async (id: string, gate: string, options: object) => {
      const input = parseOptions(Input, { id, gate, ...options }, ['id', 'gate']);
      await decideAs({ ...input, action: 'approve' });
    });
}
