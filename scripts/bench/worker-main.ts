import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { temporalTarget } from '../../worker/connection';
import { createRunbookWorker } from '../../worker/create-worker';
import { depsFromEnv } from '../../worker/deps';
import { resolveLocalStateDir } from '../../mesh/local';
import { serveUntilParentLeaves } from './child-worker';

/**
 * The bench's runbook worker, in a process of its own so its memory is measured alone: built like
 * production (depsFromEnv + createRunbookWorker) over the local mesh in MESH_LOCAL_STATE, from the bundle in
 * MESH_WORKFLOW_BUNDLE. Prints `{"ready": identity}` once it polls; stops when its parent goes away.
 */
async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const target = temporalTarget();
  const taskQueue = process.env.MESH_TASK_QUEUE;
  const bundle = process.env.MESH_WORKFLOW_BUNDLE;
  if (!taskQueue || !bundle) throw new Error('MESH_TASK_QUEUE and MESH_WORKFLOW_BUNDLE must be set');
  const connection = await NativeConnection.connect({ address: target.address });
  try {
    const worker = await createRunbookWorker({
      connection,
      namespace: target.namespace,
      deps: depsFromEnv(),
      taskQueue,
      // Every local node's own queue, as `mesh runbook worker` serves them on the local mesh.
      nodeQueues: { localMesh: resolveLocalStateDir() },
      workflowBundle: { codePath: bundle },
    });
    await serveUntilParentLeaves(worker);
  } finally {
    await connection.close();
  }
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench worker: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
