import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { PlanNodeRead } from '../../workflows/plan-read';
import type { PlanReader } from './reader';

/**
 * The plan's reader with every read of a node's disk or engine done by that node's own worker, through a
 * short read-only workflow on the runbook queue: on a real fleet the node's disk and engine are reachable
 * from the node alone. What the node refuses comes back as the activity's own failure, so a preflight
 * refusal still reads as one. Mesh verbs and probes are read from here, as before.
 */
export function readThroughNodeWorkers(reader: PlanReader, client: Client, taskQueue: string): PlanReader {
  const onNode =
    <I extends { node: string }, R>(activity: PlanNodeRead) =>
    async (input: I): Promise<R> => {
      try {
        return (await client.workflow.execute('planNodeRead', {
          taskQueue,
          workflowId: `plan-read-${input.node}-${randomBytes(6).toString('hex')}`,
          args: [{ activity, input }],
        })) as R;
      } catch (error) {
        throw innermost(error);
      }
    };
  return {
    mesh: reader.mesh,
    act: {
      ...reader.act,
      runningModuleContainers: onNode('runningModuleContainers'),
      inspectModuleContainers: onNode('inspectModuleContainers'),
      containersUsingPath: onNode('containersUsingPath'),
      preflightMove: onNode('preflightMove'),
    },
    existsOnNode: (node, path) =>
      onNode<{ node: string; path: string }, boolean>('pathExists')({ node, path }),
  };
}

/**
 * The node's own failure out of the workflow's and the activity's wrappers (by name: a plan with the local
 * mesh never loads the client SDK to ask instanceof).
 */
function innermost(error: unknown): unknown {
  const named = (e: unknown, name: string) => (e as Error | undefined)?.name === name;
  const cause = named(error, 'WorkflowFailedError') ? (error as Error).cause : undefined;
  if (named(cause, 'ActivityFailure') && (cause as Error).cause) return (cause as Error).cause;
  return cause ?? error;
}
