import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { temporal } from '@temporalio/proto';
import { TemporalReads } from '../../client/temporal-reads/reads';
import { countsPokes, pokeSignal, pokesQuery } from '../fixtures/query-workflows';
import { fixtureWorker } from '../support/fixture-worker';
import { connectHarnessClient, harnessTarget } from '../support/temporal';

const queryWorker = (taskQueue: string) =>
  fixtureWorker(require.resolve('../fixtures/query-workflows'), taskQueue);

describe('a query the server cannot buffer (real dev server)', () => {
  it(
    'is asked again while a workflow task is in flight and another query waits, and both are answered',
    { timeout: 600_000 },
    async () => {
      const target = harnessTarget();
      const { client, connection } = await connectHarnessClient();
      const reads = new TemporalReads({ address: target.address }, target.namespace);
      const taskQueue = `reads-busy-${randomBytes(4).toString('hex')}`;
      const workflowId = `${taskQueue}-wf`;
      try {
        let worker = await queryWorker(taskQueue);
        const handle = await client.workflow.start(countsPokes, {
          taskQueue,
          workflowId,
          workflowTaskTimeout: '3s',
        });
        assert.equal(await handle.query(pokesQuery), 0);
        await worker.stop();

        // A poller that takes the next workflow task and never answers it: the task stays in flight.
        await handle.signal(pokeSignal);
        const taken = await connection.withDeadline(Date.now() + 30_000, () =>
          connection.workflowService.pollWorkflowTaskQueue({
            namespace: target.namespace,
            taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
            identity: 'a poller that never answers (test)',
          }),
        );
        assert.equal(taken.workflowExecution?.workflowId, workflowId);

        const buffered = reads.query(workflowId, '', pokesQuery.name, 30_000);
        await new Promise((resolve) => setTimeout(resolve, 500));
        const refusedAtFirst = reads.query(workflowId, '', pokesQuery.name, 30_000);
        // The task times out after 3 s; a real worker then takes it again and answers both.
        worker = await queryWorker(taskQueue);
        try {
          assert.deepEqual(await Promise.all([buffered, refusedAtFirst]), [1, 1]);
        } finally {
          await worker.stop();
        }
        await handle.terminate('test done');
      } finally {
        reads.close();
        await connection.close();
      }
    },
  );
});
