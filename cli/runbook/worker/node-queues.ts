import type { MeshConfig } from '../../../config';
import { LocalMesh } from '../../../mesh/local';
import type { NodeQueues } from '../../../worker/create-worker';
import { UsageError } from '../../errors';

/** What `mesh runbook worker` was asked to serve: `--node` (repeated), `--host-root`, `--nodes-only`. */
export interface NodeQueueChoice {
  nodes: string[];
  hostRoot?: string | undefined;
  nodesOnly: boolean;
}

/**
 * The node queues a worker serves. Named nodes: each at `--host-root` (a real node's `/` by default; for
 * a local-mesh node, where the local mesh put it, never `/`). None named: with the local mesh, every one
 * of its nodes as it appears (they all live on this machine); with a real mesh, none.
 */
export async function nodeQueuesFor(
  mesh: MeshConfig['mesh'],
  choice: NodeQueueChoice,
): Promise<NodeQueues | undefined> {
  if (choice.nodes.length === 0) {
    if (choice.hostRoot !== undefined)
      throw new UsageError('--host-root needs the --node it belongs to.', 'Add --node <name>.');
    if (mesh.adapter === 'local') return { localMesh: mesh.localState };
    if (choice.nodesOnly)
      throw new UsageError(
        '--nodes-only needs a node to serve.',
        'Add --node <name> for the node this runs on.',
      );
    return undefined;
  }
  if (choice.hostRoot !== undefined || mesh.adapter !== 'local')
    return { nodes: choice.nodes.map((node) => ({ node, hostRoot: choice.hostRoot ?? '/' })) };
  const roots = await new LocalMesh({ stateDir: mesh.localState }).hostRoots();
  return {
    nodes: choice.nodes.map((node) => {
      const hostRoot = roots[node];
      if (hostRoot === undefined)
        throw new UsageError(
          `The local mesh in ${mesh.localState} has no node ${node}.`,
          'Create it first (mesh local node create), or give its --host-root.',
        );
      return { node, hostRoot };
    }),
  };
}

/** One line for the operator: which node queues the worker polls besides the runbook queue. */
export function describeNodeQueues(queues: NodeQueues | undefined, taskQueue: string): string {
  if (!queues) return 'no node queue (data and Docker steps wait for a worker on their node)';
  if ('localMesh' in queues)
    return `${taskQueue}@<node> for every node of the local mesh in ${queues.localMesh}`;
  return queues.nodes.map(({ node, hostRoot }) => `${taskQueue}@${node} (host root ${hostRoot})`).join(', ');
}
