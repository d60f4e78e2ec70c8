import type { Phase, RunbookStatus, Step, StepState } from '../../workflows/contracts';
import { pausedSentence } from '../../workflows/runbook/pause-words';
import { stalledSentence } from '../../workflows/runbook/stalled-words';
import { everyRun, formatDuration, STEP_MARK } from '../../workflows/runbook/step-marks';
import { colour } from '../output';
import { isTerminal } from './exit-codes';
import { bigFleetLines, bigFleetSteps } from './fleet-lines';
import { decisionSections, waitingBlock } from './render-gate';

/** Pure renderers for runbook status: every function takes `now` so tests pin the clock. */

/** The step marks the Web UI's details show too, coloured for a terminal. */
export const SYMBOL: Record<StepState, string> = {
  pending: colour.dim(STEP_MARK.pending),
  running: colour.cyan(STEP_MARK.running),
  waiting: colour.yellow(STEP_MARK.waiting),
  done: colour.green(STEP_MARK.done),
  skipped: colour.dim(STEP_MARK.skipped),
  failed: colour.red(STEP_MARK.failed),
  compensated: colour.magenta(STEP_MARK.compensated),
};

export const PHASE_COLOUR: Record<Phase, (text: string) => string> = {
  running: colour.cyan,
  waiting: colour.yellow,
  completed: colour.green,
  'rolled-back': colour.magenta,
  aborted: colour.red,
  failed: colour.red,
};

/**
 * How long a step ran: start to end, or start to now while it still runs or waits. Once the runbook has
 * ended (`live` false) a step without an end has no honest duration, so none is shown.
 */
export function stepElapsed(step: Step, now: Date, live = true): string | undefined {
  if (step.startedAt === undefined || (!live && step.endedAt === undefined)) return undefined;
  const end = step.endedAt !== undefined ? Date.parse(step.endedAt) : now.getTime();
  return formatDuration(end - Date.parse(step.startedAt));
}

/** One step as a checklist line; `symbol` replaces the state's symbol (the live list's spinner). */
export function stepLine(
  step: Step,
  now: Date,
  nameWidth = step.name.length,
  live = true,
  symbol = SYMBOL[step.state],
): string {
  const elapsed = stepElapsed(step, now, live) ?? '';
  const note = step.note ? `  ${colour.dim(step.note)}` : '';
  return `${symbol} ${step.name.padEnd(nameWidth)}  ${step.state.padEnd(11)} ${elapsed.padStart(6)}${note}`.trimEnd();
}

/** The step the runbook is at: the gate it waits at, else the step that runs, else the last one touched. */
export function currentStep(status: RunbookStatus): string | undefined {
  if (status.waiting) return status.waiting.gate;
  const running = status.steps.find((step) => step.state === 'running');
  if (running) return running.name;
  return [...status.steps].reverse().find((step) => step.state !== 'pending')?.name;
}

/** Where the runbook is, in words: `waiting at gate-apply`, `at step push`, `completed`. */
export function whereItIs(status: RunbookStatus): string {
  if (status.phase === 'waiting' && status.waiting) return `waiting at ${status.waiting.gate}`;
  if (status.phase === 'running' && status.paused?.holdsBefore)
    return `paused before ${status.paused.holdsBefore}`;
  if (status.phase === 'running') {
    const step = currentStep(status);
    return step ? `at step ${step}` : 'starting';
  }
  return status.phase;
}

export function headerLine(status: RunbookStatus): string {
  return (
    `${colour.bold(status.id)}  ${status.kind} on ${status.node} (module ${status.module}), ` +
    `started by ${status.startedBy}: ${PHASE_COLOUR[status.phase](whereItIs(status))}`
  );
}

export function outcomeLine(status: RunbookStatus): string | undefined {
  if (status.outcome === undefined) return undefined;
  return `${PHASE_COLOUR[status.phase](status.phase)}: ${status.outcome}`;
}

/**
 * The whole status: header, the steps as a checklist, decisions taken and refused, the waiting block (the
 * evidence, its hash, reminders, the command for each action) and the outcome.
 */
export function renderStatus(status: RunbookStatus, now: Date): string[] {
  const width = Math.max(0, ...status.steps.map((step) => step.name.length));
  const live = !isTerminal(status.phase);
  const big = bigFleetSteps(status);
  const lines = [
    headerLine(status),
    ...(big
      ? bigFleetLines(big, (step) => stepLine(step, now, width, live))
      : status.steps.flatMap(everyRun).map((step) => `  ${stepLine(step, now, width, live)}`)),
  ];
  if (status.steps.length === 0)
    lines.push(colour.dim('  (no step details: no worker answered its status query)'));
  lines.push(...decisionSections(status.decisions, status.refused));
  if (status.stalled) lines.push(colour.yellow(`stalled: ${stalledSentence(status.stalled)}`));
  if (status.paused) lines.push(colour.yellow(pausedSentence(status.id, status.paused)));
  if (status.waiting) lines.push(...waitingBlock(status.id, status.waiting, now));
  const outcome = outcomeLine(status);
  if (outcome) lines.push(outcome);
  return lines;
}

/** Steps that changed since the last look (state or note); on the first look, every step that began. */
export function changedSteps(previous: Step[] | undefined, next: Step[]): Step[] {
  if (previous === undefined) return next.filter((step) => step.state !== 'pending');
  return next.filter((step) => {
    const before = previous.find((candidate) => candidate.name === step.name);
    return before === undefined
      ? step.state !== 'pending'
      : before.state !== step.state || before.note !== step.note;
  });
}

/** One line of `watch` output: time since the runbook started, then the step. */
export function changeLine(step: Step, now: Date, runbookStart: Date): string {
  const offset = `+${formatDuration(now.getTime() - runbookStart.getTime())}`;
  return `${colour.dim(offset.padStart(8))} ${stepLine(step, now)}`;
}

/** The one sentence that refuses a second runbook on a node: which runbook runs, where it is, who started it. */
export function busySentence(
  id: string,
  kind: string,
  node: string,
  startedBy: string | undefined,
  where: string,
): string {
  return `Runbook ${id} (${kind}, started by ${startedBy ?? 'someone unknown'}) is still running on ${node}, ${where}; a node runs one runbook at a time.`;
}
