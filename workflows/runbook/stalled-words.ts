import type { Stalled } from '../contracts';
import { formatDuration } from './step-marks';

/**
 * How a stalled activity is worded in the Web UI's details, the reminders and the CLI alike.
 * Bundle-safe: no Node built-ins, no clock of its own.
 */

/** `12:03:10 UTC`: when a stalled activity's progress last moved. */
function clockOf(iso: string): string {
  return `${iso.slice(11, 19)} UTC`;
}

/** The step's note while its work stands still. */
export function stalledNote(stalled: Stalled): string {
  return `stalled: ${stalled.activity} has made no progress since ${clockOf(stalled.since)}${stalled.progress ? ` (${stalled.progress})` : ''}`;
}

/** What the operators are told: what stands still since when, where, and what they can do. */
export function stalledSentence(stalled: Stalled): string {
  return `${stalled.activity} at step ${stalled.step} has made no progress since ${clockOf(stalled.since)} (more than ${formatDuration(stalled.stalledAfterMs)}${stalled.progress ? `; ${stalled.progress}` : ''}) though the worker on ${stalled.taskQueue} still beats for it, so nothing times out: look at that node's disks and mounts (a hung network mount, a failing disk); abort (mesh runbook abort) stops it and runs the undo steps.`;
}
