import type { Command } from 'commander';
import { z } from 'zod';
import { decideAs } from './decide-as';
import { EvidenceHash, parseOptions } from '../options';

const Input = z.object({
  id: z.string().min(1),
  gate: z.string().min(1),
  evidence: EvidenceHash.optional(),
  as: z.string().min(1).optional(),
  comment: z.string().min(1).optional(),
  key: z.string().min(1).optional(),
  json: z.boolean().default(false),
});

export function registerApprove(runbook: Command): void {
  runbook
    .command('approve <id> <gate>')
    .description(
      'approve the gate a runbook waits at (e.g. approve-stop-predecessor); refused (exit 2) unless it waits there, by the operator who started it (four eyes), or on stale evidence',
    )
    .option(
      '--evidence <hash>',
      'the evidence hash you approve (`mesh runbook status` shows it); default: the current one, printed first',
    )
    .option('--as <user>', 'who approves (default: your OS user)')
    .option('--comment <text>', 'why, for the record')
    .option(
      '--key <file>',
      'sign the decision with this SSH key (a private key file, or a .pub whose key ssh-agent holds); default: $MESH_SIGNING_KEY',
    )
    .option('--json', 'print the evidence approved, the recorded decision and the next status as JSON')
    .action(async (id: string, gate: string, options: object) => {
      const input = parseOptions(Input, { id, gate, ...options }, ['id', 'gate']);
      await decideAs({ ...input, action: 'approve' });
    });
}
