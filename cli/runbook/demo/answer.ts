import { createInterface } from 'node:readline/promises';
import { setTimeout as delay } from 'node:timers/promises';
import type { LocalMesh } from '../../../mesh/local';
import { runbookWorkflowId, type Waiting } from '../../../workflows/contracts';
import { EXIT } from '../../errors';
import type { RunbookClient } from '../client';
import { sendDecision } from '../decide/decision';
import { DETACHED, exitForPhase } from '../exit-codes';
import { follow, inOneView, type FollowView } from '../follow/follow';
import { observe } from '../observe';
import type { DemoDev } from './dev';
import { automaticAnswer, say, type DemoRunbook } from './story';

/** A demo on its running `mesh runbook dev`. */
export interface DemoSession {
  rb: RunbookClient;
  mesh: LocalMesh;
  dev: DemoDev;
  yes: boolean;
  /** Started with --resume: without a terminal it waits for decisions made elsewhere instead of stopping. */
  resumed: boolean;
  /** The command that carries on where this demo stops. */
  resumeWith: string;
}

/**
 * Follows the demo's runbook to its end, deciding at each gate: `--yes` answers itself, a terminal asks,
 * a resumed demo without a terminal waits for a decision from elsewhere, a fresh one stops. Wherever the
 * demo stops before the runbook ends, it says the command that carries on.
 */
export function followAndDecide(session: DemoSession, runbook: DemoRunbook): Promise<void> {
  return inOneView((view) => followAndDecideIn(view, session, runbook));
}

/** One view across every gate: after a decision it shows what came since, never the steps again. */
async function followAndDecideIn(
  view: FollowView,
  session: DemoSession,
  runbook: DemoRunbook,
): Promise<void> {
  const id = runbookWorkflowId(runbook.node);
  for (;;) {
    const end = await follow(session.rb, id, { stopWhenWaiting: true, quiet: false, view });
    if (end.how === 'detached') {
      stopped(session, DETACHED, `stopped; ${id} keeps its place`);
      return;
    }
    const waiting = end.status?.waiting;
    if (end.how === 'ended' || !waiting) {
      if (end.status) await runbook.finale(session.mesh);
      process.exitCode = end.status ? exitForPhase(end.status.phase) : DETACHED;
      return;
    }
    await runbook.atWait?.(session.mesh, waiting);
    if (!(await answer(session, id, waiting))) return;
  }
}

/** Answers the gate or waits until someone else did; false when the demo stops here. */
async function answer(session: DemoSession, id: string, waiting: Waiting): Promise<boolean> {
  const { rb, yes } = session;
  if (yes || process.stdin.isTTY) {
    const action = yes ? automaticAnswer(waiting) : await ask(waiting);
    if (action === undefined) return stopped(session, DETACHED, `stopped; ${id} waits at ${waiting.gate}`);
    if (yes) say(`demo --yes decides at ${waiting.gate}: ${action}`);
    const by = yes ? 'demo --yes' : 'demo operator';
    await sendDecision(rb, id, { gate: waiting.gate, action, by }, 'silent');
    return true;
  }
  if (!session.resumed) {
    return stopped(
      session,
      EXIT.waiting,
      `not a terminal and no --yes: the demo stops here, and ${id} waits at ${waiting.gate} for a decision`,
      ' (add --yes to let it answer)',
    );
  }
  say(
    `waiting for a decision at ${waiting.gate}: run a command above in another terminal with TEMPORAL_ADDRESS=${session.dev.address}, or decide in the Web UI at ${session.dev.uiUrl}; Ctrl-C stops the demo`,
  );
  if (await decidedElsewhere(rb, id, waiting)) return true;
  return stopped(session, DETACHED, `stopped; ${id} waits at ${waiting.gate}`);
}

function stopped(session: DemoSession, exitCode: number, why: string, hint = ''): false {
  say(`${why}. Resume the demo with \`${session.resumeWith}\`${hint}`);
  process.exitCode = exitCode;
  return false;
}

/** The operator's answer on the terminal; undefined on Ctrl-C. */
export async function ask(waiting: Waiting): Promise<string | undefined> {
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  const ctrlC = new AbortController();
  prompt.on('SIGINT', () => ctrlC.abort());
  try {
    for (;;) {
      const question = `decide at ${waiting.gate} [${waiting.actions.join('/')}]: `;
      const answer = (await prompt.question(question, { signal: ctrlC.signal })).trim();
      if (waiting.actions.includes(answer)) return answer;
      say(`${answer || '(nothing)'} is not one of ${waiting.actions.join(', ')}`);
    }
  } catch (error) {
    if (ctrlC.signal.aborted) return undefined;
    throw error;
  } finally {
    prompt.close();
  }
}

/** Waits until the runbook no longer waits where it did (someone decided elsewhere); false on Ctrl-C. */
async function decidedElsewhere(rb: RunbookClient, id: string, waiting: Waiting): Promise<boolean> {
  const ctrlC = new AbortController();
  const stop = () => ctrlC.abort();
  process.on('SIGINT', stop);
  try {
    while (!ctrlC.signal.aborted) {
      const now = (await observe(rb, id).catch(() => undefined))?.status;
      const still = now?.waiting?.gate === waiting.gate && now.waiting.since === waiting.since;
      if (now && !still) return true;
      await delay(1_000, undefined, { signal: ctrlC.signal }).catch(() => undefined);
    }
    return false;
  } finally {
    process.off('SIGINT', stop);
  }
}
