import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowCancellationType,
  deprecatePatch,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  proxyActivities,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { FAILURE } from '../contracts';
import type { RunRef } from '../lock-hold';
import { nodeMark } from '../node-mark';
import { NODE_MARK_KIND, nodeMarkId, runbookEndedSignal, type MarkedBy } from '../node-mark-contracts';
import { MESH_KIND, MESH_NODE, MESH_REVISION } from '../search-attributes';
import { MARKS_FOLLOW_RESETS, RUNBOOK_REVISION } from './revision';

const marks = proxyActivities<Pick<Activities, 'nodesNeedingClearing' | 'markHeldBy'>>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 5 },
});

/**
 * Every node a runbook touches, marked in flight durably before the runbook's first side effect, each by a
 * mark of its own (workflows/node-mark.ts) that outlives this run's history. A node still marked by another
 * run that did not end cleanly is refused: a person looks at it and clears it first.
 */
export class NodeMarks {
  private readonly marked: string[] = [];

  /** Refuses when a node is left marked by another run; else marks every node, all at once. */
  async markInFlight(nodes: string[], what: string, startedBy: string): Promise<void> {
    await this.refuseMarked(nodes);
    const { workflowId, runId, workflowType } = workflowInfo();
    const by: MarkedBy = {
      workflowId,
      runId,
      type: workflowType,
      what,
      startedBy,
      at: new Date().toISOString(),
    };
    await Promise.all(nodes.map((node) => this.markOne(node, by)));
  }

  /** Tells each mark this run ends; each mark reads how it closed before it goes. Never throws. */
  async tellEnded(): Promise<void> {
    await Promise.all(
      this.marked.map((node) =>
        getExternalWorkflowHandle(nodeMarkId(node))
          .signal(runbookEndedSignal, selfRun())
          .catch(() => undefined),
      ),
    );
  }

  private async refuseMarked(nodes: string[]): Promise<void> {
    const refusals = await marks.nodesNeedingClearing({ nodes, self: selfRun() });
    if (refusals.length > 0)
      throw ApplicationFailure.nonRetryable(
        refusals.map((r) => r.sentence).join(' '),
        FAILURE.nodeNeedsClearing,
      );
  }

  private async markOne(node: string, by: MarkedBy): Promise<void> {
    // Told at the end even if this run is cancelled while the mark starts; another run's mark ignores it.
    if (!this.marked.includes(node)) this.marked.push(node);
    for (let attempt = 1; ; attempt++) {
      try {
        // Shielded: a cancellation while a child starts would leave the start unanswered (ABANDON).
        await CancellationScope.nonCancellable(() =>
          startChild(nodeMark, {
            workflowId: nodeMarkId(node),
            args: [{ node, by }],
            parentClosePolicy: ParentClosePolicy.ABANDON,
            cancellationType: ChildWorkflowCancellationType.ABANDON,
            staticSummary: `${node} in flight: ${by.what} (${by.workflowId}); needs \`mesh runbook clear ${node}\` unless that run ends cleanly`,
            typedSearchAttributes: [
              { key: MESH_NODE, value: node },
              { key: MESH_KIND, value: NODE_MARK_KIND },
              { key: MESH_REVISION, value: RUNBOOK_REVISION },
            ],
          }),
        );
        return;
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }
      // Marked since the check: by another run, or by one whose mark is still going; ask again, once.
      await this.refuseMarked([node]);
      // Or marked by the run a Temporal Reset carried on to this one: the mark is this run's already.
      deprecatePatch(MARKS_FOLLOW_RESETS);
      if (await marks.markHeldBy({ node, self: selfRun() })) return;
      if (attempt >= 2)
        throw ApplicationFailure.nonRetryable(
          `${node} is marked in flight by another run (${nodeMarkId(node)}) that has not let it go; see it with mesh runbook status ${node}.`,
          FAILURE.nodeNeedsClearing,
        );
    }
  }
}

function selfRun(): RunRef {
  const { workflowId, runId } = workflowInfo();
  return { workflowId, runId };
}
