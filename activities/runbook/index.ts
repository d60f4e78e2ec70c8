import { log } from '@temporalio/activity';
import { RunbookPolicy } from '../../workflows/policy';
import { Reminder, type Notifier } from './notifier';
import { createLockHoldActivities } from './lock-holds';
import { createMarkActivities } from './marks';
import { createRunActivities } from './runs';

export interface RunbookSettingsDeps {
  /** Who may decide and when to remind; the defaults when the worker's config says nothing. */
  policy?: RunbookPolicy;
  /** Where reminders go; without one they are only counted and logged. */
  notifier?: Notifier;
}

export function createRunbookActivities(deps: RunbookSettingsDeps) {
  const policy = deps.policy ?? RunbookPolicy.parse({});
  return {
    ...createRunActivities(),
    ...createLockHoldActivities(),
    ...createMarkActivities(),
    /** The worker's decision policy, read once at a runbook's start so its history shows what applied. */
    async runbookPolicy(): Promise<RunbookPolicy> {
      return policy;
    },

    /** Tells the operators a gate still waits; returns where the reminder went. */
    async remindOperators(input: Reminder): Promise<string> {
      const reminder = Reminder.parse(input);
      if (!deps.notifier) {
        log.warn('reminder not sent: no notifier configured', { ...reminder });
        return 'no notifier configured; logged only';
      }
      await deps.notifier.send(reminder);
      return `sent to ${deps.notifier.describe}`;
    },
  };
}
