import type {
  Phase,
  RecordedDecision,
  RefusedDecision,
  RunbookStatus,
  StepState,
} from '../../../workflows/contracts';
import type { HistoryActivity, HistoryFacts, HistoryWait } from './events';

export interface HistoryStep {
  name: string;
  /** From the runbook's status (its result, or its status query); absent when no worker could tell. */
  state?: StepState;
  startedAt?: string;
  endedAt?: string;
  /** The evidence the step recorded, from the runbook's status. */
  note?: string;
  activities: Omit<HistoryActivity, 'step' | 'summary'>[];
}

/** `mesh runbook history`: what happened, in order, built from the event history and, when known, the status. */
export interface RunbookHistory {
  id: string;
  kind: string;
  node: string;
  module: string;
  startedBy: string;
  startedAt: string;
  executionStatus: string;
  phase?: Phase;
  closedAt?: string;
  outcome?: string;
  steps: HistoryStep[];
  waits: HistoryWait[];
  decisions: RecordedDecision[];
  refused: RefusedDecision[];
  cancelRequested?: { at: string; by: string };
  /** Where step states and notes came from: the run's result, a worker answering its status query, or nowhere. */
  notesFrom: 'result' | 'status query' | 'none';
}

const ACTIVITY_STATE: Record<HistoryActivity['outcome'], StepState> = {
  running: 'running',
  completed: 'done',
  failed: 'failed',
  'timed out': 'failed',
  cancelled: 'compensated',
};

/**
 * The steps: the status's checklist (states, times, notes) with the activities each ran. A step the status
 * does not know (no status at all, or `start`: what the runbook did before its first step) is told by its
 * activities: when the first was scheduled, when the last ended, how it ended.
 */
function stepsOf(facts: HistoryFacts, status: RunbookStatus | undefined): HistoryStep[] {
  const steps: HistoryStep[] = (status?.steps ?? []).map((step) => ({
    name: step.name,
    state: step.state,
    ...(step.startedAt ? { startedAt: step.startedAt } : {}),
    ...(step.endedAt ? { endedAt: step.endedAt } : {}),
    ...(step.note ? { note: step.note } : {}),
    activities: [],
  }));
  const told = new Set<HistoryStep>();
  for (const { step: name, summary: _summary, ...activity } of facts.activities) {
    let step = steps.find((candidate) => candidate.name === name);
    if (!step) {
      step = { name, startedAt: activity.scheduledAt, activities: [] };
      told.add(step);
      steps.push(step);
    }
    step.activities.push(activity);
    if (told.has(step)) {
      step.state = ACTIVITY_STATE[activity.outcome];
      if (activity.endedAt) step.endedAt = activity.endedAt;
      else delete step.endedAt;
    }
  }
  const byStart = (a: HistoryStep, b: HistoryStep) => (a.startedAt ?? '').localeCompare(b.startedAt ?? '');
  if (!status) return steps.sort(byStart);
  // Steps only the activities told of go before the checklist when they came first (`start`), else after.
  const checklistStart = steps.find((step) => !told.has(step) && step.startedAt)?.startedAt ?? '';
  const early = [...told].filter((step) => (step.startedAt ?? '') <= checklistStart).sort(byStart);
  return [...early, ...steps.filter((step) => !early.includes(step))];
}

export function buildHistory(
  id: string,
  kind: string,
  facts: HistoryFacts,
  status: RunbookStatus | undefined,
  notesFrom: RunbookHistory['notesFrom'],
): RunbookHistory {
  const closed = facts.closed;
  const phase = closed?.phase ?? status?.phase;
  const outcome = closed?.outcome ?? status?.outcome;
  return {
    id,
    kind,
    node: status?.node ?? facts.input.node ?? '?',
    module: status?.module ?? facts.input.module ?? '?',
    startedBy: status?.startedBy ?? facts.input.startedBy ?? '?',
    startedAt: facts.startedAt,
    executionStatus: closed?.executionStatus ?? 'RUNNING',
    ...(phase ? { phase } : {}),
    ...(closed ? { closedAt: closed.at } : {}),
    ...(outcome ? { outcome } : {}),
    steps: stepsOf(facts, status),
    waits: facts.waits,
    decisions: facts.decisions,
    refused: facts.refused,
    ...(facts.cancelRequested ? { cancelRequested: facts.cancelRequested } : {}),
    notesFrom: status ? notesFrom : 'none',
  };
}
