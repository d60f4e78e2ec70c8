import type { Command } from 'commander';
import { z } from 'zod';
import { exitForPhase } from '../exit-codes';
import { resolveRunbookId } from '../kinds';
import { load } from '../lazy';
import { parseOptions } from '../options';

const Input = z.object({ id: z.string().min(1), json: z.boolean().default(false) });

export function registerWatch(runbook: Command): void {
  runbook
    .command('watch <id>')
    .description(
      'follow a runbook live until it waits (exit 3) or ends (0 completed, 4 rolled back, 5 failed or aborted); Ctrl-C detaches',
    )
    .option(
      '--json',
      'print JSON lines as it goes (one per step change or progress); the last is {"event": "end", "how", "exitCode", "status"}',
    )
    .action(async (id: string, options: object) => {
      const input = parseOptions(Input, { id, ...options }, ['id']);
      const runbookId = resolveRunbookId(input.id);
      const { withClient } = load.client();
      await withClient(async (rb) => {
        const { concludeFollow, follow } = load.follow();
        const end = await follow(rb, runbookId, { stopWhenWaiting: true, quiet: false, json: input.json });
        concludeFollow(end, input.json, exitForPhase);
      });
    });
}
