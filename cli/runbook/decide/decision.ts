import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import { decideUpdate, type Decision, type Waiting } from '../../../workflows/contracts';
import { UsageError } from '../../errors';
import { printJson, printLine } from '../../output';
import { forTerminal } from '../../terminal-text';
import { orUnknown, type RunbookClient } from '../client';
import { askStatus, observe } from '../observe';
import { renderStatus } from '../render';
import { decidingOnBlock, decisionLine, whoDecided } from '../render-gate';
import { signedDecision } from './sign-with-key';
import { sendUntilProcessed } from './unprocessed';

const UPDATE_MS = 30_000;

/** A runbook that has ended takes no decisions and no abort: one sentence, exit 2. */
export function endedRunbook(id: string, how: string, doing: string): UsageError {
  return new UsageError(
    `Runbook ${id} has already ended (${how.toLowerCase()}); there is nothing left to ${doing}.`,
    `See how it ended with \`mesh runbook status ${id}\`.`,
  );
}

/** The gate a decision without --evidence is about: the one the runbook waits at, if the decision fits it. */
export function gateDecidedOn(waiting: Waiting | null | undefined, decision: Decision): Waiting | undefined {
  if (!waiting) return undefined;
  if (decision.gate !== undefined && decision.gate !== waiting.gate) return undefined;
  return waiting.actions.includes(decision.action) ? waiting : undefined;
}

/**
 * What to say when no worker took a decision in time. The server keeps the Update and delivers it when a
 * worker polls again, so the decision may still be taken: the operator must look before deciding again.
 */
export function untakenDecision(id: string, seconds: number, taskQueue: string): string {
  return `No worker took the decision for ${id} within ${seconds} s; the server keeps it, and the runbook takes or refuses it once a worker polls task queue ${taskQueue} again: check with \`mesh runbook status ${id}\` before you decide again.`;
}

/** The runbook's handle and description while it runs and a worker polls its queue; else one sentence. */
export async function runningRunbook(rb: RunbookClient, id: string, verb: string, what: string) {
  const handle = rb.client.workflow.getHandle(id);
  const described = await orUnknown(id, rb.target, () => rb.within(10_000, () => handle.describe()));
  if (described.status.name !== 'RUNNING') throw endedRunbook(id, described.status.name, verb);
  if (!(await rb.hasWorker(described.taskQueue))) {
    throw new Error(
      `No worker polls task queue ${described.taskQueue}, so ${id} cannot take ${what} now; start one with \`mesh runbook worker\` and ${verb} again.`,
    );
  }
  return { handle, described };
}

/**
 * Sends one Update to a running runbook (again when the server refused it unprocessed). The runbook's
 * refusal is its own sentence with `suggestion` (exit 2); no worker in time, or the run gone, says so.
 */
export async function sendUpdate<T>(
  rb: RunbookClient,
  to: { id: string; taskQueue: string; verb: string },
  suggestion: string,
  send: () => Promise<T>,
): Promise<T> {
  try {
    return await rb.within(UPDATE_MS, () => sendUntilProcessed(send));
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError)
      throw new UsageError(error.cause?.message ?? error.message, suggestion);
    if (error instanceof WorkflowUpdateRPCTimeoutOrCancelledError)
      throw new Error(untakenDecision(to.id, UPDATE_MS / 1000, to.taskQueue));
    if (error instanceof WorkflowNotFoundError) throw endedRunbook(to.id, 'meanwhile', to.verb);
    throw error;
  }
}

/**
 * What `sendDecision` prints: the gate decided on, the decision recorded and the status after it, as text
 * or as one JSON document; or only the recorded decision (the fleet demo, which follows another runbook);
 * or nothing (the demo, whose follow view goes on to show the decision and the steps after it).
 */
export type DecisionReport = 'text' | 'json' | 'recorded' | 'silent';

/**
 * Sends one decision as the runbook's `decide` Update. The runbook is the judge: its validator refuses a
 * decision that fits no waiting gate, its handler one on stale evidence, by an approver the policy does not
 * allow, or by the initiator at a four-eyes gate. Either refusal is its own sentence (exit 2).
 *
 * Without `decision.evidence`, the hash is the one the runbook shows now; the gate, its sentence, facts
 * and hash are printed first, so the operator sees what the decision was taken on. With `key`, the decision
 * is signed with that SSH key over its namespace, runbook, run, gate, action, evidence and time.
 */
export async function sendDecision(
  rb: RunbookClient,
  id: string,
  decision: Decision,
  report: DecisionReport,
  key?: string,
): Promise<void> {
  const { handle, described } = await runningRunbook(rb, id, 'decide', 'a decision');
  let decidedOn: Waiting | undefined;
  let sent = decision;
  let waiting: Waiting | null = null;
  if (decision.evidence === undefined || (key !== undefined && decision.gate === undefined)) {
    const asked = await askStatus(rb, { workflowId: id, runId: '', taskQueue: described.taskQueue });
    if (!asked.status) throw new Error(`${id} cannot take a decision now: ${asked.problem ?? 'no status'}.`);
    waiting = asked.status.waiting;
  }
  if (decision.evidence === undefined) {
    decidedOn = gateDecidedOn(waiting, decision);
    if (decidedOn) {
      sent = { ...decision, evidence: decidedOn.evidence };
      if (report === 'text')
        decidingOnBlock(decision.action, whoDecided(forTerminal(decision)), forTerminal(decidedOn)).forEach(
          (line) => printLine(line),
        );
    }
  }
  const gate = decision.gate ?? waiting?.gate;
  if (key !== undefined && gate !== undefined)
    sent = signedDecision(sent, key, {
      namespace: rb.target.namespace,
      runbook: id,
      run: described.runId,
      gate,
    });
  const recorded = await sendUpdate(
    rb,
    { id, taskQueue: described.taskQueue, verb: 'decide' },
    `See what ${id} waits for, and its evidence, with \`mesh runbook status ${id}\`.`,
    () => handle.executeUpdate(decideUpdate, { args: [sent] }),
  );
  if (report === 'silent') return;
  if (report === 'recorded') return printLine(`recorded: ${decisionLine(forTerminal(recorded))}`);
  const next = await observe(rb, id);
  if (report === 'json')
    return printJson({ decidedOn: decidedOn ?? null, recorded, status: next.status ?? null });
  printLine(`recorded: ${decisionLine(forTerminal(recorded))}`);
  if (next.status) renderStatus(forTerminal(next.status), new Date()).forEach((line) => printLine(line));
}
