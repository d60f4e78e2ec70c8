import type { Command } from 'commander';
import { z } from 'zod';
import { load } from '../lazy';
import { EvidenceHash, parseOptions } from '../options';
import { operator, resolveRunbookId } from '../kinds';

const Input = z.object({
  id: z.string().min(1),
  gate: z.string().min(1),
  action: z.string().min(1),
  evidence: EvidenceHash.optional(),
  as: z.string().min(1).optional(),
  comment: z.string().min(1).optional(),
  key: z.string().min(1).optional(),
});

export function registerSign(runbook: Command): void {
  runbook
    .command('sign <id> <gate> <action>')
    .description(
      "print the decide Update's input for the Web UI, signed with your SSH key: paste it into Send an Update (name decide) before the policy's signatureMaxAge passes",
    )
    .option('--evidence <hash>', 'the evidence hash you decide on (default: the one the runbook shows now)')
    .option('--as <principal>', 'who decides: a principal of your key in the signers (default: your OS user)')
    .option('--comment <text>', 'why, for the record')
    .option(
      '--key <file>',
      'the SSH key to sign with (a private key file, or a .pub ssh-agent holds); default: $MESH_SIGNING_KEY',
    )
    .action(async (id: string, gate: string, action: string, options: object) => {
      const input = parseOptions(Input, { id, gate, action, ...options }, ['id', 'gate', 'action']);
      const { withClient } = load.client();
      const by = operator(input.as);
      await withClient(
        (rb) => load.signing().printSignedInput(rb, resolveRunbookId(input.id), { ...input, by }),
        {
          operator: by,
        },
      );
    });
}
