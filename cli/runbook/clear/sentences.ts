import type { LastRun } from '../../../activities/runbook/last-run';
import { UsageError } from '../../errors';
import { phaseOfClosed } from '../exit-codes';
import { isoSeconds } from '../time-format';

type RollbackFailed = Extract<LastRun, { kind: 'runbook' }>;

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ');

/** `start` on a node whose last runbook could not roll back: a person looks first, then clears it. */
export function needsClearingRefusal(node: string, last: RollbackFailed): UsageError {
  return new UsageError(
    `The last runbook on ${node} (${last.type}, run ${last.runId}) ended with its rollback failed (${oneLine(last.outcome ?? 'no outcome')}); look at ${node}, then clear it: mesh runbook clear ${node} --reason "<what you found and did>".`,
    `See what it did and left with \`mesh runbook history ${node}\`.`,
  );
}

/** `clear` on a node that does not need it: what its last run was instead. */
export function nothingToClear(node: string, last: LastRun): UsageError {
  const suggestion = `Only a node left by a runbook that did not end cleanly (its rollback failed, or it was terminated) needs clearing; start the next runbook with \`mesh runbook start\`.`;
  if (last.kind === 'none')
    return new UsageError(`There is nothing to clear on ${node}: no runbook has run there.`, suggestion);
  if (last.kind === 'cleared')
    return new UsageError(
      `There is nothing to clear on ${node}: ${last.by} cleared it at ${isoSeconds(last.at)} ("${oneLine(last.reason)}") and no runbook ran there since.`,
      suggestion,
    );
  const how = phaseOfClosed(last.status, last.failureType);
  return new UsageError(
    `There is nothing to clear on ${node}: its last runbook (${last.type}, run ${last.runId}) ended ${how} and left no mark on ${node}.`,
    suggestion,
  );
}
