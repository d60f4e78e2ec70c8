import type { Command } from 'commander';
import { z } from 'zod';
import { printJson, printLine } from '../../output';
import { forTerminal } from '../../terminal-text';
import { resolveRunbookId } from '../kinds';
import { load } from '../lazy';
import { parseOptions } from '../options';

const Input = z.object({
  id: z.string().min(1),
  json: z.boolean().default(false),
  verify: z.string().min(1).optional(),
});

export function registerHistory(runbook: Command): void {
  runbook
    .command('history <id>')
    .description(
      "what a node's last runbook did, from Temporal's event history: steps with times and evidence, waits, decisions (who, when, on which evidence) and refused attempts; works after it ended and with no worker. A node cleared since shows its clearance (who, why)",
    )
    .option('--json', 'print the history as JSON')
    .option(
      '--verify <allowed-signers>',
      're-verify every signed decision offline against this allowed_signers file; exit 1 when one does not verify',
    )
    .action(async (id: string, options: object) => {
      const input = parseOptions(Input, { id, ...options }, ['id']);
      const runbookId = resolveRunbookId(input.id);
      const { withClient } = load.client();
      const { verify } = input;
      if (verify !== undefined)
        return withClient((rb) => load.historyVerify().printVerified(rb, runbookId, verify, input.json));
      await withClient(async (rb) => {
        const { readNodeHistory } = load.historyRead();
        const history = await readNodeHistory(rb, runbookId);
        if (input.json) return printJson(history);
        const { isClearance, renderHistory, renderClearance } = load.historyRender();
        const shown = forTerminal(history);
        const lines = isClearance(shown) ? renderClearance(shown) : renderHistory(shown);
        lines.forEach((line) => printLine(line));
      });
    });
}
