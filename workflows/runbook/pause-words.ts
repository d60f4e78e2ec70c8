import type { Paused } from '../contracts';

/** `paused by bob at 13:05:09 UTC (the change window closed); holds before probe-successor; resume: …`. */
export function pausedSentence(id: string, paused: Paused): string {
  const where = paused.holdsBefore
    ? `holds before ${paused.holdsBefore}`
    : 'holds at the next step boundary (the step running now finishes first)';
  return `paused by ${paused.by} at ${paused.at.slice(11, 19)} UTC (${paused.reason}); ${where}; resume with \`mesh runbook resume ${id}\`.`;
}
