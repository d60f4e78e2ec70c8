import { ServiceError, type Client, type WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { decideUpdate, statusQuery, type RunbookStatus, type Waiting } from '../../workflows/contracts';
import { MESH_WAITING_ON } from '../../workflows/search-attributes';
import { BRANCH_CHANGED_ATTEMPTS, isBranchChanged } from '../../cli/runbook/follow/branch-changed';
import { sendUntilProcessed } from '../../cli/runbook/decide/unprocessed';

/** A wait the bench answered: when the runbook began to wait, when the bench saw it, when it decided. */
export interface AnsweredWait {
  gate: string;
  verdict: string;
  action: string;
  since: number;
  seenAt: number;
  decidedAt: number;
}

/** How long the bench asks a runbook's status again while the server times the query out. */
const QUERY_PATIENCE_MS = 120_000;

/**
 * The runbook's status, asked again as an operator would when the server gives up on the query: with 50
 * flips at once on two cores a query can take longer than the server's own deadline, which is the machine's
 * load, not the runbook losing track.
 */
export async function statusOf(handle: WorkflowHandle): Promise<RunbookStatus> {
  const deadline = Date.now() + QUERY_PATIENCE_MS;
  for (;;) {
    try {
      return await handle.query(statusQuery);
    } catch (error) {
      if (!(error instanceof ServiceError) || Date.now() >= deadline) throw error;
    }
  }
}

/** The runbook waits for something the bench does not answer (a real problem, not a pre-answered gate). */
export class UnexpectedWait extends Error {
  override readonly name = 'UnexpectedWait';
  constructor(readonly waiting: Waiting) {
    super(`waits at ${waiting.gate} (${waiting.verdict}): ${waiting.reason}`);
  }
}

/** The edge flip's pre-answered decisions: take when the successor is held, approve at the approval. */
export function edgeFlipAnswer(waiting: Waiting): string | undefined {
  if (waiting.verdict === 'held' && waiting.actions.includes('take')) return 'take';
  if (waiting.verdict === 'approval' && waiting.actions.includes('approve')) return 'approve';
  return undefined;
}

function gateIn(event: { upsertWorkflowSearchAttributesEventAttributes?: unknown }): string | undefined {
  const attributes = event.upsertWorkflowSearchAttributesEventAttributes as
    { searchAttributes?: { indexedFields?: Record<string, never> } } | undefined;
  const payload = attributes?.searchAttributes?.indexedFields?.[MESH_WAITING_ON.name];
  if (!payload) return undefined;
  const value: unknown = defaultPayloadConverter.fromPayload(payload);
  const gate = Array.isArray(value) ? value[0] : value;
  return typeof gate === 'string' ? gate : undefined;
}

/**
 * Each gate the runbook starts to wait at, as it happens, until its run closes, without polling its status:
 * it long-polls the event history for the search-attribute upsert the runbook makes when it starts to wait
 * (MeshWaitingOn). `seenAt` is when the bench saw it. The run is the one current when it begins; a page the
 * server refuses as on a changed branch (isBranchChanged: a read, nothing changed) is read again from the
 * run's start, the events already seen skipped, at most BRANCH_CHANGED_ATTEMPTS times in a row.
 */
export async function* waitsAsTheyStart(
  client: Client,
  workflowId: string,
): AsyncGenerator<{ gate: string; seenAt: number }> {
  const { runId } = await client.workflow.getHandle(workflowId).describe();
  let nextPageToken: Uint8Array | undefined;
  let seen = 0;
  let refused = 0;
  for (;;) {
    let page;
    try {
      page = await client.workflowService.getWorkflowExecutionHistory({
        namespace: client.options.namespace,
        execution: { workflowId, runId },
        waitNewEvent: true,
        skipArchival: true,
        ...(nextPageToken ? { nextPageToken } : {}),
      });
    } catch (error) {
      if (!isBranchChanged(error) || ++refused >= BRANCH_CHANGED_ATTEMPTS) throw error;
      nextPageToken = undefined;
      await new Promise((resolve) => setTimeout(resolve, 500 * refused));
      continue;
    }
    refused = 0;
    for (const event of page.history?.events ?? []) {
      const id = Number(String(event.eventId ?? 0));
      if (id <= seen) continue;
      seen = id;
      const gate = gateIn(event);
      if (gate !== undefined) yield { gate, seenAt: Date.now() };
    }
    if (!page.nextPageToken || page.nextPageToken.length === 0) return;
    nextPageToken = page.nextPageToken;
  }
}

/**
 * Sends `action` at the wait the runbook shows, with its evidence hash, as `by`; again, as the CLI does,
 * when the server refused the Update unprocessed (sendUntilProcessed).
 */
export async function decideAt(handle: WorkflowHandle, waiting: Waiting, action: string, by: string) {
  await sendUntilProcessed(() =>
    handle.executeUpdate(decideUpdate, {
      args: [{ gate: waiting.gate, action, by, evidence: waiting.evidence }],
    }),
  );
}

/**
 * Answers the runbook's waits until it closes (waitsAsTheyStart), reading the evidence hash from the status
 * query and sending the decision as an operator other than the starter. Throws UnexpectedWait at a wait
 * `answer` does not know; `answered` holds what it answered so far.
 */
export async function answerUntilClosed(
  client: Client,
  workflowId: string,
  answer: (waiting: Waiting) => string | undefined,
  by: string,
  answered: AnsweredWait[] = [],
): Promise<AnsweredWait[]> {
  const handle = client.workflow.getHandle(workflowId);
  for await (const { gate, seenAt } of waitsAsTheyStart(client, workflowId)) {
    const waiting = (await statusOf(handle)).waiting;
    if (!waiting || waiting.gate !== gate) continue;
    const action = answer(waiting);
    if (action === undefined) throw new UnexpectedWait(waiting);
    await decideAt(handle, waiting, action, by);
    answered.push({
      gate,
      verdict: waiting.verdict,
      action,
      since: Date.parse(waiting.since),
      seenAt,
      decidedAt: Date.now(),
    });
  }
  return answered;
}
