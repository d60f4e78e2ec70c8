import {
  CancellationScope,
  condition,
  continueAsNew,
  deprecatePatch,
  log,
  patched,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { same, type RunRef } from './lock-hold';
import {
  clearMarkSignal,
  endedCleanly,
  markQuery,
  runbookEndedSignal,
  type Clearance,
  type MarkEnd,
  type NodeMarkInput,
  type RunEnded,
} from './node-mark-contracts';
import { MARKS_FOLLOW_RESETS, TRUSTED_INPUT } from './runbook/revision';

const marks = proxyActivities<Pick<Activities, 'clearanceOf'>>({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});

const runs = proxyActivities<Pick<Activities, 'runEnding'>>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/** How long the mark waits for its runbook to close once told it ends; a run still open then is not ending. */
const CLOSE_WAIT_MS = 60_000;

/**
 * A node marked in flight by one runbook run (workflows/runbook/node-marks.ts), open until that run ends
 * cleanly or a person clears the node (`mesh runbook clear`). Told by its runbook that it ends, it reads
 * how the run really closed: a signal from anyone else, or one sent before a termination, removes nothing.
 * When the run did not end cleanly it keeps how it ended in its own input (continued as new), so the reason
 * outlives the run's history.
 */
export async function nodeMark(input: NodeMarkInput): Promise<MarkEnd> {
  let cleared: Clearance | undefined;
  const claimed: Clearance[] = [];
  let told = false;
  // Anyone may send clear-mark: since TRUSTED_INPUT it counts once a clearance run with its words is found.
  const checksClearances = patched(TRUSTED_INPUT);
  setHandler(runbookEndedSignal, (run) => void (toldByItsRun(run) && (told = true)));
  setHandler(clearMarkSignal, (clearance) => {
    if (checksClearances) claimed.push(clearance);
    else cleared ??= clearance;
  });
  setHandler(markQuery, () => input);
  // A cancel request (a Web UI button) does not remove a mark: only its run's clean end or a clearance does.
  return CancellationScope.nonCancellable(() => untilUnmarkedOrCleared());

  /** Its run, or a run of its runbook a reset may have carried it on to. */
  function toldByItsRun(run: RunRef): boolean {
    if (same(run)(input.by)) return true;
    if (run.workflowId !== input.by.workflowId) return false;
    deprecatePatch(MARKS_FOLLOW_RESETS);
    return true;
  }

  async function untilUnmarkedOrCleared(): Promise<MarkEnd> {
    for (;;) {
      await condition(() => cleared !== undefined || told || claimed.length > 0);
      const claim = claimed.shift();
      if (claim) {
        if (await marks.clearanceOf({ node: input.node, ...claim })) cleared = claim;
        else log.warn('a clear-mark signal no clearance run stands behind was ignored', { ...claim });
        continue;
      }
      if (cleared) return { how: 'cleared', ...cleared };
      told = false;
      const run = await runs.runEnding({ ...input.by, waitMs: CLOSE_WAIT_MS });
      if (run.state === 'running') continue;
      const ended: RunEnded =
        run.state === 'ended'
          ? {
              status: run.status,
              ...(run.failureType ? { failureType: run.failureType } : {}),
              ...(run.outcome ? { outcome: run.outcome } : {}),
            }
          : { status: 'UNKNOWN' };
      if (endedCleanly(ended)) return { how: 'unmarked', ended };
      if (!input.left) await continueAsNew<typeof nodeMark>({ ...input, left: ended });
    }
  }
}
