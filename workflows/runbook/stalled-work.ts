import {
  condition,
  deprecatePatch,
  isCancellation,
  log,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkStalled, workStalledSignal, type Stalled } from '../contracts';
import type { RunbookPolicy } from '../policy';
import { notify } from './activities';
import { failureMessage } from './failures';
import type { Progress } from './progress';
import { MAX_REMINDER_BACKOFF, STALLED_WORK } from './revision';
import { stalledSentence } from './stalled-words';

/**
 * Long activities the worker reports as stalled (a signal: the keep-alive beats that keep them alive also
 * hide that nothing moves) are shown at their step, in the status, the Web UI's details and the CLI, and
 * the operators are reminded at once, then at the policy's reminder gaps, doubling, while it lasts.
 */
export function showStalledWork(progress: Progress, policy: RunbookPolicy | undefined): void {
  if (!policy) return; // runbooks from before the operator UI remind nobody
  let reminding = false;
  setHandler(workStalledSignal, (input) => {
    const report = WorkStalled.safeParse(input);
    if (!report.success) return;
    deprecatePatch(STALLED_WORK);
    if (!report.data.stalled) return progress.unstall(report.data.activityId);
    if (!progress.stall(report.data) || reminding) return;
    reminding = true;
    void remindWhileStalled(progress, policy).finally(() => (reminding = false));
  });
}

async function remindWhileStalled(progress: Progress, policy: RunbookPolicy): Promise<void> {
  const { everyMs } = policy.reminders;
  let gap = everyMs;
  let count = 0;
  try {
    for (let stalled = progress.status.stalled; stalled; stalled = progress.status.stalled) {
      await remind(stalled, ++count);
      const still = stalled;
      if (await condition(() => progress.status.stalled !== still, gap)) continue;
      gap = Math.min(gap * 2, everyMs * MAX_REMINDER_BACKOFF);
    }
  } catch {
    // Cancelled: the runbook is ending, and its stalls with it.
  }
}

async function remind(stalled: Stalled, count: number): Promise<void> {
  try {
    await notify.remindOperators({
      runbookId: workflowInfo().workflowId,
      gate: stalled.step,
      sentence: stalledSentence(stalled),
      actions: [],
      evidence: '',
      waitingSince: stalled.since,
      reminder: count,
    });
  } catch (error) {
    if (isCancellation(error)) throw error;
    // A reminder that could not go out must not stop the next one.
    log.warn('stall reminder failed', { step: stalled.step, error: failureMessage(error) });
  }
}
