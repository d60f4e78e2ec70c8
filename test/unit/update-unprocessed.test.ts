import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { sendUntilProcessed } from '../../cli/runbook/decide/unprocessed';

const unprocessed = () =>
  new WorkflowUpdateFailedError(
    'Workflow Update failed',
    new Error(
      "Workflow Update is rejected because it wasn't processed by worker. Probably, Workflow Update is not supported by the worker.",
    ),
  );

describe('an Update the server refused unprocessed', () => {
  it('is sent again (it was never accepted), and what the runbook answers then stands', async () => {
    let sent = 0;
    const answer = await sendUntilProcessed(async () => {
      sent += 1;
      if (sent === 1) throw unprocessed();
      return 'recorded';
    });
    assert.deepEqual([answer, sent], ['recorded', 2]);
  });

  it('is not sent again when the runbook itself refused it, and at most three times in all', async () => {
    let sent = 0;
    const refusal = new WorkflowUpdateFailedError(
      'Workflow Update failed',
      new Error('Evidence abc is stale'),
    );
    await assert.rejects(
      sendUntilProcessed(async () => {
        sent += 1;
        throw refusal;
      }),
      (error) => error === refusal,
    );
    assert.equal(sent, 1);
    sent = 0;
    await assert.rejects(
      sendUntilProcessed(async () => {
        sent += 1;
        throw unprocessed();
      }),
      /Workflow Update failed/,
    );
    assert.equal(sent, 3);
  });
});
