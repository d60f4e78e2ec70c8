import type {
  Phase,
  RecordedDecision,
  RunbookStatus,
  Step,
  StepState,
  Waiting,
} from '../../workflows/contracts';
import { colour } from '../output';
import { isTerminal } from './exit-codes';

/** Pure renderers for runbook status: every function takes `now` so tests pin the clock. */

const SYMBOL: Record<StepState, string> = {
  pending: colour.dim('·'),
  running: colour.cyan('▶'),
  waiting: colour.yellow('⏸'),
  done: colour.green('✓'),
  skipped: colour.dim('–'),
  failed: colour.red('✗'),
  compensated: colour.magenta('↺'),
};

const PHASE_COLOUR: Record<Phase, (text: string) => string> = {
  running: colour.cyan,
  waiting: colour.yellow,
  completed: colour.green,
  'rolled-back': colour.magenta,
  aborted: colour.red,
  failed: colour.red,
};

export function formatDuration(ms: number): string {
  const safe = Math.max(0, ms);
  if (safe < 10_000) return `${(safe / 1000).toFixed(1)}s`;
  const seconds = Math.floor(safe / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

/**
 * How long a step ran: start to end, or start to now while it still runs or waits. Once the runbook has
 * ended (`live` false) a step without an end has no honest duration, so none is shown.
 */
export function stepElapsed(step: Step, now: Date, live = true): string | undefined {
  if (step.startedAt === undefined || (!live && step.endedAt === undefined)) return undefined;
  const end = step.endedAt !== undefined ? Date.parse(step.endedAt) : now.getTime();
  return formatDuration(end - Date.parse(step.startedAt));
}

export function stepLine(step: Step, now: Date, nameWidth = step.name.length, live = true): string {
  const elapsed = stepElapsed(step, now, live) ?? '';
  const note = step.note ? `  ${colour.dim(step.note)}` : '';
  return `${SYMBOL[step.state]} ${step.name.padEnd(nameWidth)}  ${step.state.padEnd(11)} ${elapsed.padStart(6)}${note}`.trimEnd();
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
  if (status.phase === 'running') {
    const step = currentStep(status);
    return step ? `at step ${step}` : 'starting';
  }
  return status.phase;
}

/** The exact command that carries out one action at a gate. */
export function actionCommand(id: string, gate: string, action: string): string {
  if (action === 'abort') return `mesh runbook abort ${id}`;
  if (action === 'approve') return `mesh runbook approve ${id} ${gate}`;
  return `mesh runbook decide ${id} ${action} --gate ${gate}`;
}

export function waitingBlock(id: string, waiting: Waiting, now: Date): string[] {
  const since = formatDuration(now.getTime() - Date.parse(waiting.since));
  const width = Math.max(...waiting.actions.map((action) => action.length));
  return [
    `${colour.yellow('⏸ waiting')} at ${colour.bold(waiting.gate)} (${waiting.verdict}) for ${since}`,
    `  ${waiting.reason}`,
    '  what you can do:',
    ...waiting.actions.map(
      (action) => `    ${action.padEnd(width)}  ${colour.bold(actionCommand(id, waiting.gate, action))}`,
    ),
  ];
}

export function headerLine(status: RunbookStatus): string {
  return (
    `${colour.bold(status.id)}  ${status.kind} on ${status.node} (module ${status.module}), ` +
    `started by ${status.startedBy}: ${PHASE_COLOUR[status.phase](whereItIs(status))}`
  );
}

export function decisionLine(decision: RecordedDecision): string {
  const comment = decision.comment ? ` "${decision.comment}"` : '';
  return `${decision.action} at ${decision.gate} by ${decision.by}, ${decision.at.replace(/\.\d+Z$/, 'Z')}${comment}`;
}

export function outcomeLine(status: RunbookStatus): string | undefined {
  if (status.outcome === undefined) return undefined;
  return `${PHASE_COLOUR[status.phase](status.phase)}: ${status.outcome}`;
}

/** The whole status: header, the steps as a checklist, the waiting block, decisions and the outcome. */
export function renderStatus(status: RunbookStatus, now: Date): string[] {
  const width = Math.max(0, ...status.steps.map((step) => step.name.length));
  const live = !isTerminal(status.phase);
  const lines = [headerLine(status), ...status.steps.map((step) => `  ${stepLine(step, now, width, live)}`)];
  if (status.steps.length === 0)
    lines.push(colour.dim('  (no step details: no worker answered its status query)'));
  if (status.decisions.length > 0) {
    lines.push('decisions:', ...status.decisions.map((decision) => `  ${decisionLine(decision)}`));
  }
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
