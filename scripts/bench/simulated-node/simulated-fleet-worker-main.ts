import { join } from 'node:path';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { temporalTarget } from '../../../worker/connection';
import { testPolicy } from '../../../test/support/test-policy';
import { createRunbookWorker } from '../../../worker/create-worker';
import { startSimulatedFleetNodes } from './simulated-fleet-nodes';
import type { SimulatedFleetPlan } from './simulated-fleet';
import { serveUntilParentLeaves } from '../child-worker';

/**
 * The bench's runbook worker for a simulated fleet (MESH_SIMULATED_FLEET, a SimulatedFleetPlan as JSON): the
 * production worker (createRunbookWorker: workflows, every activity, one node worker per node) whose mesh and
 * nodes' Docker engines are the simulated ones, in this process. Prints `{"ready": identity}` once it
 * polls; stops when its parent goes away.
 */
async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const target = temporalTarget();
  const env = process.env;
  const [taskQueue, bundle, plan, scratch] = [
    env.MESH_TASK_QUEUE,
    env.MESH_WORKFLOW_BUNDLE,
    env.MESH_SIMULATED_FLEET,
    env.MESH_LOCAL_STATE,
  ];
  if (!taskQueue || !bundle || !plan || !scratch)
    throw new Error(
      'MESH_TASK_QUEUE, MESH_WORKFLOW_BUNDLE, MESH_SIMULATED_FLEET and MESH_LOCAL_STATE must be set',
    );
  const fleet = await startSimulatedFleetNodes(JSON.parse(plan) as SimulatedFleetPlan);
  const connection = await NativeConnection.connect({ address: target.address });
  try {
    const worker = await createRunbookWorker({
      connection,
      namespace: target.namespace,
      deps: { ...fleet.deps, stateDir: join(scratch, 'runbook'), policy: testPolicy() },
      taskQueue,
      nodeQueues: { nodes: fleet.sites },
      workflowBundle: { codePath: bundle },
    });
    await serveUntilParentLeaves(worker);
  } finally {
    await connection.close();
    await fleet.close();
  }
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench fleet worker: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
