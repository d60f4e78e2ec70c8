import { ApplicationFailure } from '@temporalio/common';
import { MeshRefusedError, MeshUnreadableError } from '../../mesh/errors';
import type { MeshPort } from '../../mesh/port';
import { ApplyReportTimeoutError, waitForApplyReport } from '../../mesh/wait-for-apply';
import type { NodeStateEvidence, ReceiptEvidence, ReportEvidence } from '../../workflows/verdict';
import { activitySignal, heartbeat } from '../heartbeat';

export interface MeshActivityDeps {
  mesh: MeshPort;
}

interface ModuleOnNode {
  module: string;
  node: string;
}

/** A refusal (unknown name, verb out of place) will not improve with retries: fail it for the gate to show. */
async function refusalsAreFinal<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof MeshRefusedError)
      throw ApplicationFailure.nonRetryable(error.message, 'MeshRefused');
    throw error;
  }
}

function unreadable(
  error: unknown,
  fallbackSource: string,
): { readable: false; source: string; error: string } {
  if (error instanceof MeshUnreadableError)
    return { readable: false, source: error.source, error: error.message };
  if (error instanceof ApplyReportTimeoutError)
    return { readable: false, source: fallbackSource, error: error.message };
  throw error;
}

/** Mesh verbs as activities. Push is not idempotent in id, but repeating it sends the same desired state. */
export function createMeshActivities({ mesh }: MeshActivityDeps) {
  return {
    async assignModule({ module, node }: ModuleOnNode): Promise<void> {
      await refusalsAreFinal(() => mesh.assign(module, node));
    },
    async unassignModule({ module, node }: ModuleOnNode): Promise<void> {
      await refusalsAreFinal(() => mesh.unassign(module, node));
    },
    async takeModule({ module, node }: ModuleOnNode): Promise<void> {
      await refusalsAreFinal(() => mesh.take(module, node));
    },
    async pushNode({ node }: { node: string }): Promise<ReceiptEvidence> {
      try {
        return { readable: true, value: await refusalsAreFinal(() => mesh.push(node)) };
      } catch (error) {
        return unreadable(error, `push of ${node}`);
      }
    },
    /** The node's report of exactly this push and its state; unreadable (never ok) when either does not parse. */
    async collectApplyEvidence(input: {
      node: string;
      pushId: string;
      timeoutMs: number;
    }): Promise<{ report: ReportEvidence; nodeState: NodeStateEvidence }> {
      const { node, pushId, timeoutMs } = input;
      let report: ReportEvidence;
      try {
        heartbeat({ waitingFor: pushId });
        const value = await waitForApplyReport(mesh, node, pushId, {
          timeoutMs,
          signal: activitySignal(),
          onPoll: () => heartbeat({ waitingFor: pushId }),
        });
        report = { readable: true, value };
      } catch (error) {
        report = unreadable(error, `apply report of ${pushId} on ${node}`);
      }
      let nodeState: NodeStateEvidence;
      try {
        nodeState = { readable: true, value: await refusalsAreFinal(() => mesh.nodeState(node)) };
      } catch (error) {
        nodeState = unreadable(error, `state of node ${node}`);
      }
      return { report, nodeState };
    },
  };
}

export type MeshActivities = ReturnType<typeof createMeshActivities>;
