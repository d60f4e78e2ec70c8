import type { RunbookStatus, Waiting } from '../../workflows/contracts';
import { runCli } from './cli';
import { RECHECKABLE, RECHECKS, type Answer } from './drive';
import { Terminal, type TerminalEnd } from './terminal';

export interface Operated {
  /** When the first `watch` showed the runbook's steps (it re-attached). */
  firstStepAt?: number;
  /** The status the last `watch` ended on. */
  status?: RunbookStatus;
  /** Why the operator could not follow the runbook to its end. */
  problem?: string;
  /** The waits answered with recheck, as `gate (verdict): reason`. */
  rechecks: string[];
  watches: number;
}

/** Refusals (a stale evidence hash) and failed decides in a row before the operator gives up. */
const TRIES = 5;

const lastLine = (text: string) => text.trim().split('\n').at(-1)?.slice(0, 200) ?? '';

/**
 * An operator at a terminal, through the compiled CLI only: `mesh runbook watch <id> --json` until the
 * runbook waits (exit 3) or ends (exit 0), then `mesh runbook decide` with the evidence hash the watch
 * showed, then watch again, until the runbook completes. `first` is a `start` that already followed it to
 * its first wait.
 */
export async function operateThroughCli(
  id: string,
  env: NodeJS.ProcessEnv,
  answer: Answer,
  options: { deadlineMs: number; first?: TerminalEnd },
): Promise<Operated> {
  const deadline = Date.now() + options.deadlineMs;
  const operated: Operated = { rechecks: [], watches: 0 };
  let end = options.first;
  let refused = 0;
  while (Date.now() < deadline) {
    if (!end) {
      const watch = new Terminal(['runbook', 'watch', id, '--json'], env);
      operated.watches++;
      end = await watch.ended(Math.max(1_000, deadline - Date.now()));
      operated.firstStepAt ??= watch.firstStepAt;
    }
    if (end.status) operated.status = end.status;
    if (end.code === 0 && end.status?.phase === 'completed') return operated;
    const waiting = end.status?.waiting;
    if (end.code !== 3 || !waiting)
      return {
        ...operated,
        problem: `watch ended ${end.code ?? end.signal} at ${end.status?.phase ?? 'no status'}: ${end.stderr.trim().slice(0, 1500)}`,
      };
    const decided = await decideThroughCli(id, env, waiting, answer, operated.rechecks);
    if (decided.problem) return { ...operated, problem: decided.problem };
    // A stale hash (the gate looked again meanwhile) is refused: the next watch shows the gate as it is now.
    refused = decided.taken ? 0 : refused + 1;
    if (refused >= TRIES)
      return {
        ...operated,
        problem: `${TRIES} decisions at ${waiting.gate} in a row not taken, the last: ${decided.refusal ?? ''}`,
      };
    end = undefined;
  }
  return { ...operated, problem: `did not complete in ${options.deadlineMs / 1000} s` };
}

/**
 * `mesh runbook decide <id> <action>` with the gate and evidence hash the operator saw: the runbook's
 * answer, else a recheck where a loaded machine explains the wait (at most RECHECKS, each kept in
 * `rechecks`); a problem where no answer fits.
 */
export async function decideThroughCli(
  id: string,
  env: NodeJS.ProcessEnv,
  waiting: Waiting,
  answer: Answer,
  rechecks: string[],
): Promise<{ taken: boolean; refusal?: string; problem?: string }> {
  let action = answer(waiting);
  if (
    action === undefined &&
    RECHECKABLE.has(waiting.verdict) &&
    waiting.actions.includes('recheck') &&
    rechecks.length < RECHECKS
  ) {
    action = 'recheck';
    rechecks.push(`${waiting.gate} (${waiting.verdict}): ${waiting.reason.slice(0, 160)}`);
  }
  if (action === undefined)
    return { taken: false, problem: `waits at ${waiting.gate} (${waiting.verdict}): ${waiting.reason}` };
  const decided = await runCli(
    ['runbook', 'decide', id, action, '--gate', waiting.gate, '--evidence', waiting.evidence, '--as', 'bob'],
    env,
    120_000,
  );
  return decided.code === 0
    ? { taken: true }
    : { taken: false, refusal: `exit ${decided.code ?? decided.signal} ${lastLine(decided.stderr)}` };
}
