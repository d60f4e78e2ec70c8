import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { Lab } from '../../../test/support/lab';
import { statusQuery, type RunbookStatus, type Waiting } from '../../../workflows/contracts';
import { ContainerEventLog } from '../../bench/docker-events';
import { drive, movedAgainAt, wrongProceeds, type SeenWait } from '../drive';
import type { RunResult } from '../result';

const run = promisify(execFile);
const CTL = join(__dirname, '..', '..', 'lab', 'ctl.sh');

/** One fault of the lab (scripts/lab/ctl.sh), and how long before the repair. */
export function ctl(...args: string[]): Promise<unknown> {
  return run('bash', [CTL, ...args]);
}

/** A runbook on the lab, seeded from nothing, started as an operator starts it, over these nodes. */
export interface LabStory {
  name: string;
  nodes: string[];
  seed(lab: Lab): Promise<void>;
  /** The `mesh runbook start ...` arguments. */
  start(lab: Lab): string[];
  /** The runbooks an operator answers: the story's own (`runbook-<node>`), each node's in a fleet. */
  runbooks: string[];
  /** The id whose end is the story's end. */
  main: string;
  /** The phase an undisturbed run of the story ends in (`completed` unless the story is meant to roll back). */
  ends?: RunbookStatus['phase'];
}

/**
 * The fault, when it strikes, and its repair `healAfterMs` later (none: it heals by itself). It strikes
 * either at a wait (`atWait`, before the operator's decision there, which then meets the fault) or as soon
 * as the runbook's status shows `when`.
 */
export interface LabFault {
  what: string;
  atWait?: string;
  when?(status: RunbookStatus): boolean;
  strike(): Promise<unknown>;
  heal?: () => Promise<unknown>;
  healAfterMs?: number;
  /**
   * What the fault must not take away, watched from the strike on: when it held again, in ms after the
   * moment it counts from (the run's recovery instead of the time to its next task), or what went wrong.
   */
  watch?(lab: Lab, main: WorkflowHandle): Promise<{ ms?: number; problem?: string }>;
}

/** What an operator answers on the lab: the undisturbed run's decisions; retry where a step failed. */
function answer(waiting: Waiting): string | undefined {
  if (waiting.actions.includes('take')) return 'take';
  if (waiting.actions.includes('approve')) return 'approve';
  if (waiting.gate === 'gate-apply' && waiting.actions.includes('recreate')) return 'recreate';
  if (waiting.verdict === 'approval' && waiting.actions.includes('remove')) return 'remove';
  if (waiting.verdict === 'failed' && waiting.actions.includes('retry')) return 'retry';
  return undefined;
}

/** Creates and destroys beyond one per container name and host: a side effect done twice. */
function repeated(logs: Map<string, ContainerEventLog>): string[] {
  const counts: Record<string, number> = {};
  for (const [host, log] of logs)
    for (const { name, action } of log.events)
      if (action === 'create' || action === 'destroy')
        counts[`${host}/${name} ${action}`] = (counts[`${host}/${name} ${action}`] ?? 0) + 1;
  return Object.entries(counts).flatMap(([key, n]) => (n > 1 ? [`${key}: ${n} times`] : []));
}

const DEADLINE_MS = 900_000;

/**
 * The run of `id` this story started (its start at or after `since`), once it exists: a fleet starts its
 * nodes' runbooks wave by wave, and the runs of earlier stories under the same id are over and not this
 * story's to follow.
 */
async function startedSince(client: Client, id: string, since: Date): Promise<WorkflowHandle> {
  const deadline = Date.now() + DEADLINE_MS;
  while (Date.now() < deadline) {
    const run = await client.workflow
      .getHandle(id)
      .describe()
      .catch(() => undefined);
    if (run && run.startTime >= since) return client.workflow.getHandle(id, run.runId);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`no run of ${id} started within ${DEADLINE_MS / 1000} s`);
}

/** Executions under one workflow id since `since` beyond the first: a runbook started twice for one node. */
async function executionsBeyondOne(client: Client, ids: string[], since: Date): Promise<string[]> {
  const extra: string[] = [];
  for (const id of ids) {
    let n = 0;
    const query = `WorkflowId = '${id}' AND StartTime >= '${since.toISOString()}'`;
    for await (const _ of client.workflow.list({ query })) n += 1;
    if (n > 1) extra.push(`${id}: ${n} executions`);
  }
  return extra;
}

/**
 * Runs the story with the fault on the lab and counts, as the chaos table does: lost (it did not complete),
 * duplicated (a container created or destroyed twice, a second execution for a node), wrong proceeds (a step
 * after a gate that waited, with nobody deciding there), and the time from the fault to the runbook's next
 * completed task. The lab is repaired (ctl.sh up) whatever happened.
 */
export async function labRun(
  story: LabStory,
  fault: LabFault,
  log: (line: string) => void,
): Promise<RunResult> {
  const name = `${story.name}: ${fault.what}`;
  const lab = await Lab.story();
  await story.seed(lab);
  const logs = new Map<string, ContainerEventLog>();
  for (const node of story.nodes)
    logs.set(node, await ContainerEventLog.open(lab.engine(node), 'org.meshctl.module'));
  const { client, connection } = await lab.client();
  const notes: string[] = [];
  const since = new Date();
  let faultAt: number | undefined;
  let healedAt: number | undefined;
  try {
    const start = await lab.cli('runbook', 'start', ...story.start(lab), '--yes', '--detach');
    if (start.code !== 0) throw new Error(`start exited ${start.code}: ${start.stderr}`);
    const main = await startedSince(client, story.main, since);
    let closed = false;
    let healing: Promise<unknown> = Promise.resolve();
    let watched: Promise<{ ms?: number; problem?: string }> = Promise.resolve({});
    const strike = async (where: string) => {
      faultAt = Date.now();
      log(`${name}: fault at ${where}`);
      await fault.strike();
      if (fault.watch) watched = fault.watch(lab, main);
      healing = (async () => {
        if (fault.heal) {
          await new Promise((resolve) => setTimeout(resolve, fault.healAfterMs ?? 0));
          await fault.heal();
        }
        healedAt = Date.now();
      })();
    };
    const watching = (async () => {
      while (!closed && faultAt === undefined && fault.when) {
        const status = await main.query(statusQuery).catch(() => undefined);
        if (status && fault.when(status))
          await strike(status.steps.find((s) => s.state === 'running')?.name ?? 'a step');
        else await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const beforeDecision = async (waiting: Waiting) => {
      if (faultAt === undefined && waiting.gate === fault.atWait) await strike(`the wait at ${waiting.gate}`);
    };
    const driven = await Promise.all(
      story.runbooks.map(async (id) =>
        drive(await startedSince(client, id, since), {
          answer,
          deadlineMs: DEADLINE_MS,
          by: 'chaos-operator',
          beforeDecision,
          ...(id === story.main && story.ends ? { ends: story.ends } : {}),
        }),
      ),
    ).finally(() => (closed = true));
    await main.result().catch(() => undefined);
    await watching;
    await healing;
    const held = await watched;
    const status = await main.query(statusQuery).catch(() => undefined);
    const problems = driven.flatMap((d) => (d.problem ? [d.problem] : []));
    const wrong = driven.flatMap((d, i) => {
      const waits: SeenWait[] = d.waits;
      const own = d.status;
      return own ? wrongProceeds(own, waits).map((w) => `${story.runbooks[i]}: ${w}`) : [];
    });
    const duplicates = [...repeated(logs), ...(await executionsBeyondOne(client, story.runbooks, since))];
    const moved =
      faultAt !== undefined ? await movedAgainAt(client, story.main, healedAt ?? faultAt) : undefined;
    if (held.problem) problems.push(held.problem);
    notes.push(...problems, ...wrong, ...duplicates);
    if (faultAt === undefined) notes.push('the fault never struck: the runbook did not reach its moment');
    const ends = story.ends ?? 'completed';
    const lost = status?.phase === ends ? 0 : 1;
    if (lost) notes.push(`ended ${status?.phase ?? 'unknown'}, not ${ends}: ${status?.outcome ?? ''}`);
    return {
      name,
      passed: faultAt !== undefined && lost === 0 && problems.length === 0,
      lost,
      duplicated: duplicates.length,
      wrongProceeds: wrong.length,
      ...(held.ms !== undefined
        ? { recoveryS: held.ms / 1000 }
        : moved !== undefined && faultAt !== undefined
          ? { recoveryS: (moved - faultAt) / 1000 }
          : {}),
      notes,
    };
  } finally {
    for (const l of logs.values()) l.close();
    await connection.close();
    await ctl('up').catch((error: unknown) => log(`ctl.sh up failed: ${String(error)}`));
  }
}
