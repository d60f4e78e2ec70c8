import { NativeConnection, Worker } from '@temporalio/worker';
import { harnessTarget, quietRuntime } from './temporal';

/** A worker of the harness's dev server running a fixture's workflows (test/fixtures/<name>) on `taskQueue`. */
export async function fixtureWorker(workflowsPath: string, taskQueue: string) {
  const target = harnessTarget();
  quietRuntime();
  const connection = await NativeConnection.connect({ address: target.address });
  const worker = await Worker.create({ connection, namespace: target.namespace, taskQueue, workflowsPath });
  const running = worker.run();
  return {
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}
