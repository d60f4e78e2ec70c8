import { printable } from '../../base/printable';
import type { RunbookStatus, Step, Waiting } from '../contracts';
import { pausedSentence } from './pause-words';
import { stalledSentence } from './stalled-words';
import { everyRun, formatDuration, STEP_MARK } from './step-marks';

function clock(iso: string | undefined): string {
  return iso ? iso.slice(11, 19) : '';
}

function duration(from: string, to: string): string {
  return formatDuration(Date.parse(to) - Date.parse(from));
}

function stepLine(step: Step): string {
  const when = step.startedAt
    ? ` · ${clock(step.startedAt)}${step.endedAt ? ` → ${clock(step.endedAt)} (${duration(step.startedAt, step.endedAt)})` : ''}`
    : '';
  return `- ${STEP_MARK[step.state]} **${step.name}** ${step.state}${when}${step.note ? ` · ${plain(step.note)}` : ''}`;
}

/** The exact Update to send from the Web UI for one action: name `decide` and this JSON input. */
export function decisionInput(waiting: Waiting, action: string): string {
  return JSON.stringify({ action, by: '', identity: 'web-ui', evidence: waiting.evidence, comment: '' });
}

function waitingSection(id: string, waiting: Waiting): string[] {
  return [
    `### Waiting at ${waiting.gate} (${waiting.verdict}) since ${clock(waiting.since)} UTC`,
    '',
    plain(waiting.reason),
    '',
    `Evidence \`${waiting.evidence}\`${waiting.reminders > 0 ? ` · reminders sent: ${waiting.reminders} (${plain(waiting.lastReminder ?? '')})` : ''}`,
    '',
    ...waiting.facts.map((fact) => `- ${plain(fact)}`),
    '',
    `To decide from this page: **⋮ → Send an Update**, Update name \`decide\`, and one of these inputs (put your own name in \`by\`; an empty or placeholder name is refused):`,
    '',
    ...waiting.actions.flatMap((action) => [
      `- ${action}:`,
      '',
      `  \`${decisionInput(waiting, action)}\``,
      '',
    ]),
    `From a terminal: \`mesh runbook decide ${id} <action> --evidence ${waiting.evidence}\`.`,
    '',
    `Signed (where the policy requires it): \`mesh runbook sign ${id} ${waiting.gate} <action> --key <your SSH key>\` prints this input with its signature, to paste here as it is.`,
  ];
}

/** The runbook's current details for the Web UI: what it waits on and how to answer, then the checklist. */
export function renderDetails(status: RunbookStatus): string {
  const lines = [
    `**${status.kind}** of **${status.module}** on **${status.node}** · started by ${plain(status.startedBy)} · phase **${status.phase}**`,
    '',
    ...(status.waiting ? [...waitingSection(status.id, status.waiting), ''] : []),
    ...(status.stalled
      ? [`### Stalled at ${status.stalled.step}`, '', plain(stalledSentence(status.stalled)), '']
      : []),
    ...(status.paused
      ? [
          '### Paused',
          '',
          plain(pausedSentence(status.id, status.paused)),
          '',
          'From here: Update `resume` with `{"by": "<your name>"}`.',
          '',
        ]
      : []),
    ...(status.outcome ? [`Outcome: ${plain(status.outcome)}`, ''] : []),
    '### Steps',
    ...status.steps.flatMap(everyRun).map(stepLine),
  ];
  if (status.decisions.length + status.refused.length > 0) {
    lines.push('', '### Decisions');
    for (const d of status.decisions)
      lines.push(
        `- ${plain(d.action)} at ${d.gate} by ${plain(d.by)}${d.signer ? ` (signed, key ${plain(d.signer.fingerprint)})` : identityNote(d.identity)}, ${clock(d.at)} UTC, evidence ${plain(d.evidence ?? '-')}${d.comment ? ` — “${plain(d.comment)}”` : ''}`,
      );
    for (const r of status.refused)
      lines.push(
        `- refused: ${plain(r.action)} at ${r.gate} by ${plain(r.by)}${identityNote(r.identity)}, ${clock(r.at)} UTC — ${plain(r.refusal)}`,
      );
  }
  return lines.join('\n');
}

/**
 * Text someone else wrote (an operator's name or comment; a node's reason, failure or fact; a note or
 * outcome quoting one), shown as written: one line; no Markdown, HTML, link or entity (the Web UI still
 * curls straight quotes); no line that starts a heading, list, quote or rule; control characters and
 * bidi overrides shown as `\u202e`.
 */
export function plain(text: string): string {
  const line = printable(text, Number.POSITIVE_INFINITY)
    .replace(/\s+/g, ' ')
    .replace(/[\\`*_[\]|<>~&!#]/g, (ch) => `\\${ch}`);
  return line.replace(/^( ?)([-+=])/, '$1\\$2').replace(/^( ?\d+)([.)])/, '$1\\$2');
}

const IDENTITY: Record<string, string> = {
  'os-user': ' (OS user)',
  'as-flag': ' (--as, self-declared)',
  'web-ui': ' (typed in the Web UI, self-declared)',
};

function identityNote(identity: string | undefined): string {
  return identity ? (IDENTITY[identity] ?? '') : '';
}
