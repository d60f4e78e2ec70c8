import type { Command } from 'commander';
import { z } from 'zod';
import { decideAs } from './decide-as';
import { load } from '../lazy';
import { EvidenceHash, parseOptions } from '../options';

const Input = z.object({
  id: z.string().min(1),
  action: z.string().min(1),
  gate: z.string().min(1).optional(),
  evidence: EvidenceHash.optional(),
  as: z.string().min(1).optional(),
  comment: z.string().min(1).optional(),
  key: z.string().min(1).optional(),
  json: z.boolean().default(false),
});

export function registerDecide(runbook: Command): void {
  runbook
    .command('decide <id> <action>')
    .description(
      'answer the gate a runbook waits at with one of its actions (take, retry, recheck, recreate, approve, abort, ...); exit 2 when refused',
    )
    .option(
      '--evidence <hash>',
      'the evidence hash you decided on (`mesh runbook status` shows it); refused if the evidence changed since (default: the current one, printed first)',
    )
    .option(
      '--gate <gate>',
      'the gate you decide on; refused if the runbook waits elsewhere (default: where it waits)',
    )
    .option('--as <user>', 'who decides (default: your OS user)')
    .option('--comment <text>', 'why, for the record')
    .option(
      '--key <file>',
      'sign the decision with this SSH key (a private key file, or a .pub whose key ssh-agent holds); default: $MESH_SIGNING_KEY',
    )
    .option('--json', 'print the evidence decided on, the recorded decision and the next status as JSON')
    .addHelpText('after', () => `\n${load.plans().decisionsHelp()}`)
    .action(async (id: string, action: string, options: object) => {
      const input = parseOptions(Input, { id, action, ...options }, ['id', 'action']);
      await decideAs(input);
    });
}
