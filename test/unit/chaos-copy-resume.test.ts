import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { copiesStartedOver } from '../../scripts/chaos/copy-resume';

const BYTES = 1_000;

/** A copyTree's scheduled and completed events, its result as a retry that resumed from `doneBefore` reports it. */
function copyHistory(doneBefore: number, copiedByRetry: number): temporal.api.history.v1.IHistory {
  const result = {
    files: 2,
    bytes: BYTES,
    bytesCopiedThisAttempt: copiedByRetry,
    resumed: true,
    resumedFromBytes: doneBefore,
    seconds: 1,
  };
  return temporal.api.history.v1.History.fromObject({
    events: [
      { eventId: 5, activityTaskScheduledEventAttributes: { activityType: { name: 'copyTree' } } },
      {
        eventId: 7,
        activityTaskCompletedEventAttributes: {
          scheduledEventId: 5,
          result: { payloads: [defaultPayloadConverter.toPayload(result)] },
        },
      },
    ],
  });
}

describe('chaos: did a killed copy start over', () => {
  it('no: the retry wrote everything, but the killed attempt had reported nothing done', () => {
    assert.deepEqual(copiesStartedOver(copyHistory(0, BYTES)), []);
  });

  it('no: the retry wrote only what the killed attempt had not finished', () => {
    assert.deepEqual(copiesStartedOver(copyHistory(600, 400)), []);
  });

  it('yes: the retry wrote again bytes the killed attempt had reported done', () => {
    const [said] = copiesStartedOver(copyHistory(600, BYTES));
    assert.match(
      said ?? '',
      /wrote 1000 of 1000 bytes again, though an earlier attempt had reported 600 done/,
    );
  });
});
