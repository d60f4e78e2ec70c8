import type { Decision, RecordedDecision, RefusedDecision, Waiting } from '../../workflows/contracts';
import { colour } from '../output';
import { formatDuration, STEP_MARK } from '../../workflows/runbook/step-marks';
import { isoSeconds } from './time-format';

/** Pure renderers for a waiting gate and the decisions taken or refused at gates; `now` is passed in. */

/**
 * The exact command that carries out one action at a gate. Every action, abort too, is a decision that
 * carries the evidence hash the operator saw, so a gate whose evidence changed meanwhile refuses it.
 */
export function actionCommand(id: string, action: string, evidence: string): string {
  return `mesh runbook decide ${id} ${action} --evidence ${evidence}`;
}

export function reminderLine(waiting: Waiting): string {
  if (waiting.reminders === 0) return 'reminders: none sent yet';
  const last = waiting.lastReminder ? `, last: ${waiting.lastReminder}` : '';
  return `reminders: ${waiting.reminders} sent${last}`;
}

/** The sentence, the facts behind it and their hash: what an operator decides on. */
export function evidenceLines(waiting: Waiting): string[] {
  return [
    `  ${waiting.reason}`,
    `  evidence ${colour.bold(waiting.evidence)}:`,
    ...(waiting.facts.length > 0
      ? waiting.facts.map((fact) => `    - ${fact}`)
      : [colour.dim('    (no facts recorded)')]),
  ];
}

export function waitingBlock(id: string, waiting: Waiting, now: Date): string[] {
  const since = formatDuration(now.getTime() - Date.parse(waiting.since));
  const width = Math.max(...waiting.actions.map((action) => action.length));
  return [
    `${colour.yellow(`${STEP_MARK.waiting} waiting`)} at ${colour.bold(waiting.gate)} (${waiting.verdict}) for ${since}, since ${isoSeconds(waiting.since)}`,
    ...evidenceLines(waiting),
    `  ${reminderLine(waiting)}`,
    '  what you can do:',
    ...waiting.actions.map(
      (action) => `    ${action.padEnd(width)}  ${colour.bold(actionCommand(id, action, waiting.evidence))}`,
    ),
  ];
}

/** What `decide` and `approve` print before they send a decision they took the evidence hash for. */
export function decidingOnBlock(action: string, by: string, waiting: Waiting): string[] {
  return [
    `deciding ${colour.bold(action)} as ${by} at ${colour.bold(waiting.gate)} (${waiting.verdict}) on evidence ${colour.bold(waiting.evidence)}:`,
    ...evidenceLines(waiting),
  ];
}

function commentOf(decision: { comment?: string | undefined }): string {
  return decision.comment ? ` "${decision.comment}"` : '';
}

const IDENTITY_SOURCE: Record<NonNullable<Decision['identity']>, string> = {
  'os-user': 'OS user',
  'as-flag': '--as',
  'web-ui': 'typed in the Web UI',
};

/** Who decided and where that name came from: `bob (--as)`; a decision from before sources were recorded has none. */
export function whoDecided(decision: Pick<Decision, 'by' | 'identity'>): string {
  return decision.identity ? `${decision.by} (${IDENTITY_SOURCE[decision.identity]})` : decision.by;
}

export function decisionLine(decision: RecordedDecision): string {
  return `${decision.action} at ${decision.gate} by ${signedOrWho(decision)}, ${isoSeconds(decision.at)}, evidence ${decision.evidence ?? 'none'}${commentOf(decision)}`;
}

/** A signed decision's verified principal and key (`carol (signed, key SHA256:…)`), else who it says. */
function signedOrWho(decision: RecordedDecision): string {
  return decision.signer
    ? `${decision.signer.principal} (signed, key ${decision.signer.fingerprint})`
    : whoDecided(decision);
}

export function refusedLine(refused: RefusedDecision): string {
  return `${refused.action} at ${refused.gate} by ${whoDecided(refused)}, ${isoSeconds(refused.at)}, evidence ${refused.evidence ?? 'none'}${commentOf(refused)}: ${colour.red('refused')}, ${refused.refusal}`;
}

/** The decisions taken and the attempts refused, as `status` and `history` list them. */
export function decisionSections(decisions: RecordedDecision[], refused: RefusedDecision[]): string[] {
  return [
    ...(decisions.length > 0 ? ['decisions:', ...decisions.map((d) => `  ${decisionLine(d)}`)] : []),
    ...(refused.length > 0 ? ['refused attempts:', ...refused.map((r) => `  ${refusedLine(r)}`)] : []),
  ];
}
