import type { Client } from '@temporalio/client';
import { QUEUE_MEMO, type RunbookKind } from '../workflows/contracts';
import { MESH_KIND, MESH_MODULE, MESH_NODE, MESH_PHASE } from '../workflows/search-attributes';
import { withSignedStart, type StartSigner } from './sign-start';

/** What differs between one runbook's start and another's: everything else is the same for every kind. */
export interface RunbookStart<I extends { module: string; startedBy: string }> {
  kind: RunbookKind;
  input: I;
  workflowId: string;
  /** The node the runbook's lists and search attributes name: the node, or a fleet's FLEET_NODE. */
  node: string;
  summary: string;
  /** The static details' paragraphs, in order. */
  details: string[];
  taskQueue: string;
  /** Signs the start with its starter's key (mesh runbook start --key): four eyes then compare two keys. */
  signStart?: StartSigner | undefined;
}

/**
 * The start options of every runbook, a node's or a fleet's: under its own id (a second one is refused by
 * Temporal itself: WorkflowExecutionAlreadyStartedError), its queue in the memo, signed when asked, with
 * the same summary, details and search attributes wherever it starts from.
 */
export function runbookStartOptions<I extends { module: string; startedBy: string }>(
  client: Client,
  start: RunbookStart<I>,
) {
  const { kind, input, workflowId, node, signStart, taskQueue } = start;
  const at = { namespace: client.options.namespace, runbook: workflowId, kind, node };
  return {
    args: [
      signStart
        ? withSignedStart(input, signStart, { ...at, module: input.module, startedBy: input.startedBy })
        : input,
    ] as [I],
    taskQueue,
    workflowId,
    workflowIdConflictPolicy: 'FAIL' as const,
    workflowIdReusePolicy: 'ALLOW_DUPLICATE' as const,
    // Lock and node queue names derive from it; a replay runs on a queue of its own (runbook/queue.ts).
    memo: { [QUEUE_MEMO]: taskQueue },
    staticSummary: start.summary,
    staticDetails: start.details.join('\n\n'),
    // Set at the start, so lists filter on them before the runbook's first workflow task upserts its own.
    typedSearchAttributes: [
      { key: MESH_NODE, value: node },
      { key: MESH_MODULE, value: input.module },
      { key: MESH_KIND, value: kind },
      { key: MESH_PHASE, value: 'running' as const },
    ],
  };
}
