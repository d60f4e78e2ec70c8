import type { Command } from 'commander';
import { z } from 'zod';
import { colour, printJson, printLine } from '../output';
import { kindOfWorkflowType, runbooksQuery } from './kinds';
import { load } from './lazy';
import { parseOptions } from './options';
import { whereItIs } from './render';

const Input = z.object({
  json: z.boolean().default(false),
  limit: z.coerce.number().int().positive().default(20),
});

export interface RunbookRow {
  id: string;
  kind: string;
  type: string;
  /** Temporal's execution status: RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, TIMED_OUT. */
  status: string;
  startTime: string;
  closeTime?: string;
  /** For a running runbook whose worker answers: its phase and the gate it waits at. */
  phase?: string;
  waitingGate?: string;
  where?: string;
}

export function registerList(runbook: Command): void {
  runbook
    .command('list')
    .description(
      'the runbooks on this task queue, newest first; running ones with their phase and waiting gate',
    )
    .option('--limit <count>', 'show at most this many (default 20)')
    .option('--json', 'print the runbooks as JSON')
    .action(async (options: object) => {
      const input = parseOptions(Input, { ...options });
      const { withClient } = load.client();
      const { askStatus } = load.observe();
      await withClient(async (rb) => {
        const rows: RunbookRow[] = [];
        for await (const info of rb.client.workflow.list({
          query: runbooksQuery(rb.taskQueue),
          pageSize: input.limit,
        })) {
          const row: RunbookRow = {
            id: info.workflowId,
            kind: kindOfWorkflowType(info.type) ?? info.type,
            type: info.type,
            status: info.status.name,
            startTime: info.startTime.toISOString(),
            ...(info.closeTime ? { closeTime: info.closeTime.toISOString() } : {}),
          };
          if (info.status.name === 'RUNNING') {
            const handle = rb.client.workflow.getHandle(info.workflowId, info.runId);
            const asked = await askStatus(rb, handle, info.taskQueue);
            if (asked.status) {
              row.phase = asked.status.phase;
              row.where = whereItIs(asked.status);
              if (asked.status.waiting) row.waitingGate = asked.status.waiting.gate;
            } else row.where = asked.problem;
          }
          rows.push(row);
          if (rows.length >= input.limit) break;
        }
        if (input.json) return printJson(rows);
        if (rows.length === 0) return printLine(`no runbooks on task queue ${rb.taskQueue}`);
        formatRows(rows).forEach((line) => printLine(line));
      });
    });
}

export function formatRows(rows: RunbookRow[]): string[] {
  const table = rows.map((row) => [
    row.id,
    row.kind,
    row.status,
    row.startTime.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
    row.where ?? '',
  ]);
  const header = ['ID', 'KIND', 'STATUS', 'STARTED', 'WHERE'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...table.map((cells) => (cells[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  return [colour.bold(line(header)), ...table.map(line)];
}
