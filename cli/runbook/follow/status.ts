import type { Command } from 'commander';
import { z } from 'zod';
import { printJson, printLine } from '../../output';
import { forTerminal } from '../../terminal-text';
import { exitForPhase } from '../exit-codes';
import { resolveRunbookId } from '../kinds';
import { load } from '../lazy';
import { parseOptions } from '../options';
import { renderStatus } from '../render';

const Input = z.object({ id: z.string().min(1), json: z.boolean().default(false) });

export function registerStatus(runbook: Command): void {
  runbook
    .command('status <id>')
    .description(
      "a runbook's steps and what it waits for; <id> is runbook-<node> or the node (exit 0 running or completed, 3 waiting, 4, 5)",
    )
    .option('--json', 'print the runbook status as JSON')
    .action(async (id: string, options: object) => {
      const input = parseOptions(Input, { id, ...options }, ['id']);
      const runbookId = resolveRunbookId(input.id);
      const { withReader } = load.client();
      await withReader(async (rb) => {
        const { observe } = load.observe();
        const observed = await observe(rb, runbookId);
        if (!observed.status) {
          throw new Error(
            `${runbookId} is running (${observed.kind}, started by ${observed.startedBy ?? 'someone unknown'} at ${observed.startTime.toISOString()}) but ${observed.unanswered ?? 'no worker answered'}; start a worker with \`mesh runbook worker\` to see its steps.`,
          );
        }
        if (input.json) printJson(observed.status);
        else renderStatus(forTerminal(observed.status), new Date()).forEach((line) => printLine(line));
        process.exitCode = exitForPhase(observed.status.phase);
      });
    });
}
