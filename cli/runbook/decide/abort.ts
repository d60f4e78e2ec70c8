import type { Command } from 'commander';
import { z } from 'zod';
import { errorColour, printJsonLine, printLine } from '../../output';
import { exitForAbort } from '../exit-codes';
import { operator, resolveRunbookId } from '../kinds';
import { load } from '../lazy';
import { parseOptions } from '../options';

const Input = z.object({
  id: z.string().min(1),
  as: z.string().min(1).optional(),
  json: z.boolean().default(false),
});

export function registerAbort(runbook: Command): void {
  runbook
    .command('abort <id>')
    .description(
      'cancel a runbook: its compensations undo its work (it is never terminated); follows it to its end (exit 0 aborted)',
    )
    .option(
      '--as <user>',
      'who aborts, recorded as the identity of the cancel request (default: your OS user)',
    )
    .option(
      '--json',
      'print JSON lines as it goes (one per step change or progress); the last is {"event": "end", "how", "exitCode", "status"}',
    )
    .action(async (id: string, options: object) => {
      const input = parseOptions(Input, { id, ...options }, ['id']);
      const runbookId = resolveRunbookId(input.id);
      const by = operator(input.as);
      const { orUnknown, withClient } = load.client();
      await withClient(
        async (rb) => {
          const { endedRunbook } = load.decision();
          const { concludeFollow, follow } = load.follow();
          const handle = rb.client.workflow.getHandle(runbookId);
          const described = await orUnknown(runbookId, rb.target, () =>
            rb.within(10_000, () => handle.describe()),
          );
          if (described.status.name !== 'RUNNING')
            throw endedRunbook(runbookId, described.status.name, 'abort');
          await orUnknown(runbookId, rb.target, () => handle.cancel());
          if (input.json) printJsonLine({ event: 'abort-requested', id: runbookId, by });
          else printLine(`asked ${runbookId} to abort (by ${by}); its compensations run before it ends`);
          if (!(await rb.hasWorker(described.taskQueue).catch(() => true))) {
            process.stderr.write(
              `${errorColour.yellow('note:')} no worker polls task queue ${described.taskQueue}; the abort takes effect when one runs.\n`,
            );
          }
          const end = await follow(rb, runbookId, { stopWhenWaiting: false, quiet: false, json: input.json });
          concludeFollow(end, input.json, exitForAbort);
        },
        { operator: by },
      );
    });
}
