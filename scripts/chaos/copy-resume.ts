import type { temporal } from '@temporalio/proto';
import type { CopyResult } from '../../activities/data';
import { activityResults } from '../../test/support/data-move';

type History = temporal.api.history.v1.IHistory;

/**
 * Copies that wrote again what an earlier attempt had reported done: the retry of a killed copy may write
 * every byte only when the attempt before it finished nothing (killed before its first heartbeat, or before
 * its first file). What the earlier attempt had done is the progress it heartbeated last, which the retry
 * resumed from and reports (`resumedFromBytes`; the server's history does not keep heartbeats).
 */
export function copiesStartedOver(history: History): string[] {
  return activityResults<CopyResult>(history, 'copyTree').flatMap((copy) => {
    const before = copy.resumedFromBytes ?? 0;
    return copy.bytesCopiedThisAttempt > copy.bytes - before
      ? [
          `the copy wrote ${copy.bytesCopiedThisAttempt} of ${copy.bytes} bytes again, though an earlier attempt had reported ${before} done`,
        ]
      : [];
  });
}
