import { colour } from '../../output';
import type { HistoryStep, RunbookHistory } from './record';
import { formatDuration } from '../../../workflows/runbook/step-marks';
import { PHASE_COLOUR, SYMBOL } from '../render';
import { decisionSections } from '../render-gate';
import { clockTime, isoSeconds } from '../time-format';

export { isClearance, renderClearance } from './clearance';

const NOTES_FROM: Record<RunbookHistory['notesFrom'], string> = {
  result: 'step states and notes from the runbook’s result',
  'status query': 'step states and notes from its status query',
  none: 'no step notes: no worker answered and the run left no result; activities as the history holds them',
};

function span(from: string | undefined, to: string | undefined): string {
  if (from === undefined) return '';
  return to === undefined
    ? `${clockTime(from)} → …`
    : `${clockTime(from)} → ${clockTime(to)} ${formatDuration(Date.parse(to) - Date.parse(from))}`;
}

function activityCount(step: HistoryStep): string {
  const n = step.activities.length;
  return n === 0 ? '' : colour.dim(` [${n} ${n === 1 ? 'activity' : 'activities'}]`);
}

function stepLines(step: HistoryStep, nameWidth: number): string[] {
  const symbol = step.state ? SYMBOL[step.state] : colour.dim('?');
  const note = step.note ? `  ${colour.dim(step.note)}` : '';
  const line = `  ${symbol} ${step.name.padEnd(nameWidth)}  ${(step.state ?? '').padEnd(11)} ${span(step.startedAt, step.endedAt).padEnd(26)}${note}${activityCount(step)}`;
  const failures = step.activities
    .filter((activity) => activity.failure)
    .map(
      (activity) =>
        `      ${SYMBOL.failed} ${activity.activity} ${activity.outcome} at ${clockTime(activity.endedAt ?? activity.scheduledAt)}: ${activity.failure}`,
    );
  return [line.trimEnd(), ...failures];
}

function waitLines(history: RunbookHistory): string[] {
  if (history.waits.length === 0) return [];
  const width = Math.max(...history.waits.map((wait) => wait.gate.length));
  return [
    'waited for a decision:',
    ...history.waits.map((wait) => `  ${wait.gate.padEnd(width)}  ${span(wait.from, wait.to)}`),
  ];
}

/** `mesh runbook history`: header, the steps with times and evidence, the waits, decisions, refusals, the end. */
export function renderHistory(history: RunbookHistory): string[] {
  const phase = history.phase ? PHASE_COLOUR[history.phase](history.phase) : history.executionStatus;
  const width = Math.max(0, ...history.steps.map((step) => step.name.length));
  return [
    `${colour.bold(history.id)}  ${history.kind} on ${history.node} (module ${history.module}), started by ${history.startedBy} at ${isoSeconds(history.startedAt)}: ${phase}`,
    `steps (${NOTES_FROM[history.notesFrom]}):`,
    ...history.steps.flatMap((step) => stepLines(step, width)),
    ...waitLines(history),
    ...decisionSections(history.decisions, history.refused),
    ...(history.cancelRequested
      ? [`abort requested by ${history.cancelRequested.by} at ${isoSeconds(history.cancelRequested.at)}`]
      : []),
    ...(history.closedAt
      ? [`${phase} at ${isoSeconds(history.closedAt)}${history.outcome ? `: ${history.outcome}` : ''}`]
      : ['still running']),
  ];
}
