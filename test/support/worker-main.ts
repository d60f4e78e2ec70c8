import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { resolveLocalStateDir } from '../../mesh/local';
import { temporalTarget } from '../../worker/connection';
import { createRunbookWorker } from '../../worker/create-worker';
import { depsFromEnv } from '../../worker/deps';

/**
 * A runbook worker in a process of its own, built like production (depsFromEnv + createRunbookWorker),
 * serving the node queue of every node of its local mesh as `mesh runbook dev` does, so a test can SIGKILL
 * it mid-runbook: see worker-process.ts. Reads TEMPORAL_ADDRESS,
 * TEMPORAL_NAMESPACE, MESH_TASK_QUEUE, MESH_LOCAL_STATE and MESH_WORKFLOW_BUNDLE; prints one JSON line
 * `{"ready": identity}` once it polls; stops gracefully on SIGTERM or when its parent goes away.
 */
async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const target = temporalTarget();
  const taskQueue = process.env.MESH_TASK_QUEUE;
  if (!taskQueue) throw new Error('MESH_TASK_QUEUE is not set');
  const bundle = process.env.MESH_WORKFLOW_BUNDLE;
  const connection = await NativeConnection.connect({ address: target.address });
  try {
    const worker = await createRunbookWorker({
      connection,
      namespace: target.namespace,
      deps: depsFromEnv(),
      taskQueue,
      nodeQueues: { localMesh: resolveLocalStateDir() },
      ...(bundle ? { workflowBundle: { codePath: bundle } } : {}),
    });
    const running = worker.run();
    // The parent holds our stdin: when it exits, however it exits, this worker does not poll on.
    process.stdin.on('close', () => worker.shutdown());
    process.stdin.resume();
    process.stdout.write(`${JSON.stringify({ ready: worker.identity })}\n`);
    await running;
  } finally {
    await connection.close();
  }
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`worker-main: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
