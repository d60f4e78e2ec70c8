import { setTimeout as delay } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { GrpcCode } from '../../client/temporal-reads/grpc';
import { harnessTarget } from './temporal';

const { UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ADMITTED: ADMITTED } =
  temporal.api.enums.v1.UpdateWorkflowExecutionLifecycleStage;

/**
 * Until the server has admitted the Update `updateId` sent to the workflow (with no worker running, it
 * waits there for the next workflow task), so a test that needs several Updates in one task waits for that
 * event instead of a fixed time. Fails after `timeoutMs`.
 */
export async function updateAdmitted(
  client: Client,
  workflowId: string,
  updateId: string,
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const admitted = await client.workflowService
      .pollWorkflowExecutionUpdate({
        namespace: harnessTarget().namespace,
        updateRef: { workflowExecution: { workflowId }, updateId },
        waitPolicy: { lifecycleStage: ADMITTED },
      })
      .then(
        (answer) => (answer.stage ?? 0) >= ADMITTED,
        (error: { code?: number }) => {
          if (error.code === GrpcCode.NOT_FOUND) return false;
          throw error;
        },
      );
    if (admitted) return;
    if (Date.now() > deadline)
      throw new Error(`the server did not admit update ${updateId} within ${timeoutMs} ms`);
    await delay(100);
  }
}
