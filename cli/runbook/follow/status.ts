import type { Command } from 'commander';
import { z } from 'zod';
import type { LeftMark } from '../../../activities/runbook/node-marks';
import { EXIT } from '../../errors';
import { printJson, printLine } from '../../output';
import type { RunbookReader } from '../client';
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
      "a runbook's steps and what it waits for, and whether its node needs clearing; <id> is runbook-<node> or the node (exit 0 running or completed, 3 waiting, 4, 5)",
    )
    .option('--json', 'print the runbook status as JSON')
    .action(async (id: string, options: object) => {
      const input = parseOptions(Input, { id, ...options }, ['id']);
      const runbookId = resolveRunbookId(input.id);
      const { withReader } = load.client();
      await withReader(async (rb) => {
        const { observe } = load.observe();
        const left = await leftMarkOf(rb, runbookId.replace(/^runbook-/, ''));
        const observed = await observe(rb, runbookId).catch((error: unknown) => {
          if (left) return undefined; // no runbook to show (its history is gone, or a clearance is newer)
          throw error;
        });
        if (!observed) return needsClearingOnly(runbookId, left as LeftMark, input.json);
        if (!observed.status) {
          throw new Error(
            `${runbookId} is running (${observed.kind}, started by ${observed.startedBy ?? 'someone unknown'} at ${observed.startTime.toISOString()}) but ${observed.unanswered ?? 'no worker answered'}; start a worker with \`mesh runbook worker\` to see its steps.`,
          );
        }
        const clearing = left ? load.nodeMarks().leftSentence(left) : undefined;
        if (input.json)
          printJson(clearing ? { ...observed.status, needsClearing: clearing } : observed.status);
        else {
          renderStatus(forTerminal(observed.status), new Date()).forEach((line) => printLine(line));
          if (clearing) printLine(`needs clearing: ${forTerminal(clearing)}`);
        }
        process.exitCode = exitForPhase(observed.status.phase);
      });
    });
}

/** The node's durable mark when its runbook did not end cleanly (activities/runbook/node-marks.ts). */
async function leftMarkOf(rb: RunbookReader, node: string): Promise<LeftMark | undefined> {
  const { isLeft, readNodeMark } = load.nodeMarks();
  const { markSourceOfReads } = load.nodeMarkReads();
  const reading = await readNodeMark(markSourceOfReads(rb.reads), node);
  return isLeft(reading) ? reading : undefined;
}

function needsClearingOnly(id: string, left: LeftMark, json: boolean): void {
  const sentence = load.nodeMarks().leftSentence(left);
  if (json) printJson({ id, node: left.node, needsClearing: sentence });
  else printLine(`${id}: ${left.node} needs clearing: ${sentence}`);
  process.exitCode = EXIT.failedOrAborted;
}
