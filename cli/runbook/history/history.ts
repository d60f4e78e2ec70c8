import type { Command } from 'commander';
import { z } from 'zod';
import { printJson, printLine } from '../../output';
import { resolveRunbookId } from '../kinds';
import { load } from '../lazy';
import { parseOptions } from '../options';

const Input = z.object({ id: z.string().min(1), json: z.boolean().default(false) });

export function registerHistory(runbook: Command): void {
  runbook
    .command('history <id>')
    .description(
      "what a runbook did, from Temporal's event history: steps with times and evidence, waits, decisions (who, when, on which evidence) and refused attempts; works after it ended and with no worker",
    )
    .option('--json', 'print the history as JSON')
    .action(async (id: string, options: object) => {
      const input = parseOptions(Input, { id, ...options }, ['id']);
      const runbookId = resolveRunbookId(input.id);
      const { withClient } = load.client();
      const { readRunbookHistory } = load.historyRead();
      await withClient(async (rb) => {
        const history = await readRunbookHistory(rb, runbookId);
        if (input.json) return printJson(history);
        const { renderHistory } = load.historyRender();
        renderHistory(history).forEach((line) => printLine(line));
      });
    });
}
