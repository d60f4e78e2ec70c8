import type { Command } from 'commander';
import { z } from 'zod';
import { printJson, printLine } from '../../output';
import { operator, resolveRunbookId } from '../kinds';
import { load } from '../lazy';
import { identityOf } from './decide-as';
import { parseOptions } from '../options';

const PauseInput = z.object({
  id: z.string().min(1),
  reason: z.string().trim().min(1, 'say why it pauses: --reason "<why>"'),
  as: z.string().min(1).optional(),
  json: z.boolean().default(false),
});

const ResumeInput = PauseInput.omit({ reason: true });

export function registerPause(runbook: Command): void {
  runbook
    .command('pause <id>')
    .description(
      'hold a runbook (or a fleet: it starts no further node) at its next step boundary, never inside a step nor while an outage lasts (after stop-predecessor, until probe-public); shows who paused and why; refused (exit 2) when already paused or undoing',
    )
    .requiredOption('--reason <text>', 'why it pauses, shown to every operator')
    .option('--as <user>', 'who pauses (default: your OS user)')
    .option('--json', 'print the pause as JSON')
    .action(async (id: string, options: object) => {
      const input = parseOptions(PauseInput, { id, ...options }, ['id']);
      const by = operator(input.as);
      const request = {
        by,
        reason: input.reason,
        identity: identityOf(input.as),
      };
      const runbookId = resolveRunbookId(input.id);
      const { withClient } = load.client();
      await withClient(
        async (rb) => {
          const paused = await load.pauses().sendPause(rb, runbookId, request);
          if (input.json) return printJson(paused);
          printLine(
            `paused ${runbookId} (by ${by}: ${input.reason}); it holds at its next step boundary. Resume with \`mesh runbook resume ${runbookId}\`.`,
          );
        },
        { operator: by },
      );
    });
}

export function registerResume(runbook: Command): void {
  runbook
    .command('resume <id>')
    .description('let a paused runbook go on; refused (exit 2) when it is not paused')
    .option('--as <user>', 'who resumes (default: your OS user)')
    .option('--json', 'print the pause it ended as JSON')
    .action(async (id: string, options: object) => {
      const input = parseOptions(ResumeInput, { id, ...options }, ['id']);
      const by = operator(input.as);
      const request = { by, identity: identityOf(input.as) };
      const runbookId = resolveRunbookId(input.id);
      const { withClient } = load.client();
      await withClient(
        async (rb) => {
          const ended = await load.pauses().sendResume(rb, runbookId, request);
          if (input.json) return printJson(ended);
          printLine(`resumed ${runbookId} (by ${by}); it was paused by ${ended.by} (${ended.reason}).`);
        },
        { operator: by },
      );
    });
}
