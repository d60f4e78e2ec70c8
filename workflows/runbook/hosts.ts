import { ApplicationFailure } from '@temporalio/workflow';
import { describeHost, FAILURE, type HostFingerprint } from '../contracts';
import { act } from './activities';

const recorded = new Map<string, HostFingerprint>();

/** The host recorded for `node` at preflight, which every later node-local activity carries; none before. */
export function recordedHost(node: string): HostFingerprint | undefined {
  return recorded.get(node);
}

/**
 * Which host each node is, read at preflight by the node's own worker and kept for the rest of the run, so
 * a worker on another host refuses the node's later work. Two hosts polling one node's queue (a unit copied
 * with the wrong --node, the old and the new host of a replacement) is refused before anything changes,
 * naming both. Returns one line for the step.
 */
export async function recordNodeHosts(nodes: string[]): Promise<string> {
  const seen: string[] = [];
  for (const node of nodes) {
    const pollers = await act.nodeQueuePollers({ node });
    const hosts = [...new Set(pollers.flatMap((p) => (p.host ? [p.host] : [])))];
    if (hosts.length > 1)
      throw ApplicationFailure.nonRetryable(
        `Two hosts poll node ${node}'s queue: ${pollers.map((p) => p.identity).join(' and ')}; stop the worker whose --node is wrong (or the one on the host being replaced), then retry.`,
        FAILURE.wrongHost,
      );
    const fingerprint = await act.nodeFingerprint({ node });
    recorded.set(node, fingerprint);
    seen.push(`${node} is ${describeHost(fingerprint)}`);
  }
  return seen.join('; ');
}
