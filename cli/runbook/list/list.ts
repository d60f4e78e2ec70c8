import type { Command } from 'commander';
import { z } from 'zod';
import { CLEARANCE_TYPE } from '../../../workflows/clearance-names';
import { NODE_MARK_TYPE } from '../../../workflows/node-mark-contracts';
import { Name } from '../../../mesh/schemas';
import type { Clearance } from '../../../workflows/clear-node';
import { Phase, PHASES, runbookWorkflowId } from '../../../workflows/contracts';
import { MESH_KIND, MESH_NODE, MESH_PHASE, MESH_WAITING_ON } from '../../../workflows/search-attributes';
import { UsageError } from '../../errors';
import { colour, printJson, printLine } from '../../output';
import { forTerminal } from '../../terminal-text';
import type { RunbookReader } from '../client';
import { isTerminal, phaseOfClosed } from '../exit-codes';
import { KINDS, kindOfWorkflowType, type KindRegistry } from '../../../workflows/kinds';
import { load } from '../lazy';
import { listQuery, type ListFilters } from './query';
import { listRevisions } from './revisions';
import type { RunInfo } from '../../../client/temporal-reads/reads';
import { parseOptions } from '../options';
import { whereItIs } from '../render';
import { isoSeconds } from '../time-format';

const Input = z.object({
  node: Name.optional(),
  phase: z.enum(PHASES, { error: `it must be one of ${PHASES.join(', ')}` }).optional(),
  waiting: z.boolean().default(false),
  revision: z.boolean().default(false),
  json: z.boolean().default(false),
  limit: z.coerce.number().int().positive().default(20),
});

/** The phase `list` shows for a node's mark when the runbook that set it did not end cleanly. */
export const NEEDS_CLEARING = 'needs-clearing';

export interface RunbookRow {
  id: string;
  kind: string;
  node: string;
  type: string;
  /** Temporal's execution status: RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, TIMED_OUT. */
  status: string;
  /**
   * The runbook's phase: from its status query when a worker answers, else from its search attributes;
   * `needs-clearing` for a node's mark (kind node-mark) left by a runbook that did not end cleanly.
   */
  phase?: string;
  /** The gate it waits at, when it waits for a decision. */
  waitingOn?: string;
  startTime: string;
  closeTime?: string;
  /** For a running runbook: where it is (`at step push`), or why no worker told. */
  where?: string;
}

export function registerList(runbook: Command): void {
  runbook
    .command('list')
    .description(
      'the runbooks on this task queue, newest first, with node, kind, phase and the gate each waits at, the nodes that need clearing (phase needs-clearing) and the clearances of nodes (who, why); filters combine (AND)',
    )
    .option('--node <node>', 'only the runbooks of this node')
    .option('--phase <phase>', `only runbooks in this phase (${PHASES.join(', ')})`)
    .option('--waiting', 'only runbooks waiting for a decision now')
    .option(
      '--revision',
      'instead: how many runs are open per workflow code revision (every workflow on the task queue), and which revisions this code can no longer replay',
    )
    .option('--limit <count>', 'show at most this many (default 20)')
    .option('--json', 'print the runbooks as JSON')
    .action(async (options: object) => {
      const input = parseOptions(Input, { ...options });
      if (input.waiting && input.phase !== undefined && input.phase !== 'waiting') {
        throw new UsageError(
          `--waiting lists runbooks in phase waiting, so --phase ${input.phase} matches none.`,
          'Leave out one of the two filters.',
        );
      }
      if (input.revision && (input.node ?? input.phase ?? (input.waiting || undefined)) !== undefined)
        throw new UsageError(
          '--revision counts every open run on the task queue, so it takes no other filter.',
          'Run mesh runbook list --revision alone.',
        );
      const { withReader } = load.client();
      await withReader(async (rb) => {
        if (input.revision) return listRevisions(rb, input.json);
        const rows = await listRows(rb, input, input.limit);
        if (input.json) return printJson(rows);
        if (rows.length === 0) return printLine(noneLine(rb.taskQueue, input));
        formatRows(forTerminal(rows)).forEach((line) => printLine(line));
      });
    });
}

function noneLine(taskQueue: string, filters: ListFilters): string {
  const what = [
    filters.waiting ? 'waiting' : undefined,
    filters.phase ? `in phase ${filters.phase}` : undefined,
    filters.node ? `on node ${filters.node}` : undefined,
  ].filter(Boolean);
  return `no runbooks${what.length > 0 ? ` ${what.join(' ')}` : ''} on task queue ${taskQueue}`;
}

async function listRows(rb: RunbookReader, filters: ListFilters, limit: number): Promise<RunbookRow[]> {
  const { askStatus } = load.observe();
  const rows: RunbookRow[] = [];
  for await (const info of rb.reads.list(listQuery(rb.taskQueue, filters), limit)) {
    const row = rowOf(info);
    if (info.type === NODE_MARK_TYPE) {
      // A mark in flight or going is its runbook's own business: its row says where it is.
      const needs = await needsClearing(rb, row.node);
      if (!needs) continue;
      row.phase = NEEDS_CLEARING;
      row.where = needs;
    } else if (info.type === CLEARANCE_TYPE) {
      if (info.status === 'COMPLETED') row.where = clearedLine(await clearanceOf(rb, info));
    } else if (info.status === 'RUNNING') {
      const asked = await askStatus(rb, info);
      if (asked.status) {
        row.phase = asked.status.phase;
        row.where = whereItIs(asked.status);
        if (asked.status.waiting) row.waitingOn = asked.status.waiting.gate;
        else delete row.waitingOn;
      } else row.where = asked.problem;
    }
    rows.push(row);
    if (rows.length >= limit) break;
  }
  return rows;
}

/** What the row of a node's mark says: the sentence when the node needs clearing, else nothing to list. */
async function needsClearing(rb: RunbookReader, node: string): Promise<string | undefined> {
  const { isLeft, leftSentence, readNodeMark } = load.nodeMarks();
  const { markSourceOfReads } = load.nodeMarkReads();
  const reading = await readNodeMark(markSourceOfReads(rb.reads), node);
  return isLeft(reading) ? leftSentence(reading) : undefined;
}

async function clearanceOf(rb: RunbookReader, info: RunInfo): Promise<Clearance> {
  const ending = await rb.reads.ending(info.workflowId, info.runId);
  return (ending?.closed === 'completed' ? ending.result : undefined) as Clearance;
}

/** What a clearance says in `list` and `history`: who looked at the node, and what they found and did. */
export function clearedLine(clearance: Clearance): string {
  return `cleared by ${clearance.by}: ${clearance.reason.replace(/\s*\n\s*/g, ' ')}`;
}

/** A row from what the visibility store holds: the runbook's own search attributes, Temporal's status. */
export function rowOf(info: RunInfo, registry: KindRegistry = KINDS): RunbookRow {
  const attribute = (key: { name: string }) => {
    const value = info.searchAttributes[key.name];
    return typeof value === 'string' ? value : undefined;
  };
  const node = attribute(MESH_NODE) ?? info.workflowId.replace(runbookWorkflowId(''), '');
  const said = Phase.safeParse(attribute(MESH_PHASE));
  const closed = info.status !== 'RUNNING';
  // A run closed from outside the runbook (terminated, timed out) never published its end.
  const phase =
    closed && (!said.success || !isTerminal(said.data))
      ? phaseOfClosed(info.status, undefined)
      : said.success
        ? said.data
        : undefined;
  const waitingOn = closed ? undefined : attribute(MESH_WAITING_ON);
  return {
    id: info.workflowId,
    kind: attribute(MESH_KIND) ?? kindOfWorkflowType(info.type, registry) ?? info.type,
    node,
    type: info.type,
    status: info.status,
    ...(phase ? { phase } : {}),
    ...(waitingOn ? { waitingOn } : {}),
    startTime: info.startTime.toISOString(),
    ...(info.closeTime ? { closeTime: info.closeTime.toISOString() } : {}),
  };
}

export function formatRows(rows: RunbookRow[]): string[] {
  const table = rows.map((row) => [
    row.id,
    row.kind,
    row.node,
    row.phase ?? row.status.toLowerCase(),
    row.waitingOn ?? '',
    isoSeconds(row.startTime).replace('T', ' '),
    row.where ?? '',
  ]);
  const header = ['ID', 'KIND', 'NODE', 'PHASE', 'WAITING ON', 'STARTED', 'WHERE'];
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
