import type { google, temporal } from '@temporalio/proto';
import type { TemporalConnectionOptions } from '../../config';
import { call, type RequestOf, type ResponseOf } from './api';
import type { CallName } from './calls';
import { GrpcCode, GrpcError, GrpcSession } from './grpc';
import { firstValue, searchAttributes } from './payloads';

type Timestamp = google.protobuf.ITimestamp | null | undefined;
type Long = number | { toNumber(): number } | null | undefined;
const numberOf = (value: Long) => (typeof value === 'number' ? value : (value?.toNumber() ?? 0));
const dateOf = (at: Timestamp) => new Date(numberOf(at?.seconds) * 1000 + (at?.nanos ?? 0) / 1e6);

/** Temporal's execution statuses by number, named as the client SDK names them. */
const STATUS_NAMES = [
  'UNSPECIFIED',
  'RUNNING',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'TERMINATED',
  'CONTINUED_AS_NEW',
  'TIMED_OUT',
  'PAUSED',
];
const CLOSE_EVENT = 2;
/** EVENT_TYPE_WORKFLOW_TASK_COMPLETED (decoded messages carry enums as numbers). */
const WORKFLOW_TASK_COMPLETED = 7;

/** One run as the visibility store and DescribeWorkflowExecution tell it. */
export interface RunInfo {
  workflowId: string;
  runId: string;
  type: string;
  taskQueue: string;
  /** RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, CONTINUED_AS_NEW, TIMED_OUT. */
  status: string;
  startTime: Date;
  closeTime?: Date;
  /** The run's search attributes, decoded. */
  searchAttributes: Record<string, unknown>;
}

export interface Described extends RunInfo {
  pendingActivities: temporal.api.workflow.v1.IPendingActivityInfo[];
  /** The run the last Temporal Reset of this run started. */
  resetRunId?: string;
}

/** How a closed run ended, as its close event says; a continued run is followed to its last run. */
export type RunEnding =
  | { closed: 'completed'; result: unknown }
  | {
      closed: 'failed' | 'cancelled' | 'terminated' | 'timed out';
      message: string;
      failureType?: string;
      /** The failure's first detail (a runbook's final status, since status-in-failure). */
      detail?: unknown;
    };

/** No run with this id (and run id) on the namespace. */
export class RunNotFound extends Error {
  override readonly name = 'RunNotFound';
}

/**
 * What `mesh runbook` reads from Temporal (describe, query, how a run ended, its input, the list, the
 * pollers), over one HTTP/2 session and without Temporal's client SDK, which takes longer to load than
 * `status` and `list` may take in all. Writes (start, decide, clear) stay with the SDK.
 */
export class TemporalReads {
  private readonly session: GrpcSession;

  constructor(
    options: TemporalConnectionOptions,
    readonly namespace: string,
  ) {
    this.session = new GrpcSession(options);
  }

  private async call<C extends CallName>(name: C, request: RequestOf<C>, ms: number) {
    return call(this.session, name, { namespace: this.namespace, ...request }, Date.now() + ms);
  }

  async describe(workflowId: string, runId = '', ms = 10_000): Promise<Described> {
    const described = await this.call(
      'DescribeWorkflowExecution',
      { execution: { workflowId, runId } },
      ms,
    ).catch(notFoundAsRunNotFound(workflowId));
    const info = described.workflowExecutionInfo;
    const resetRunId = described.workflowExtendedInfo?.resetRunId;
    return {
      ...runInfoOf(info ?? {}),
      pendingActivities: described.pendingActivities ?? [],
      ...(resetRunId ? { resetRunId } : {}),
    };
  }

  /**
   * A query's answer; a rejected query or one no worker answers in `ms` is an error saying so. The server
   * buffers one query while a workflow task runs and refuses another (RESOURCE_EXHAUSTED, "consistent query
   * buffer is full"): that one is asked again until `ms` runs out, as it is busy, not broken.
   */
  async query(workflowId: string, runId: string, queryType: string, ms: number): Promise<unknown> {
    const deadline = Date.now() + ms;
    const request = { execution: { workflowId, runId }, query: { queryType, queryArgs: { payloads: [] } } };
    const ask = () =>
      this.call('QueryWorkflow', request, Math.max(deadline - Date.now(), 1)).catch(
        notFoundAsRunNotFound(workflowId),
      );
    const answer = await askWhileBusy(ask, deadline);
    if (answer.queryRejected)
      throw new Error(`the query was rejected (status ${answer.queryRejected.status})`);
    return firstValue(answer.queryResult);
  }

  /** How the run ended; undefined while it runs. */
  async ending(workflowId: string, runId = '', ms = 10_000): Promise<RunEnding | undefined> {
    let execution = { workflowId, runId };
    for (;;) {
      const page = await this.call(
        'GetWorkflowExecutionHistory',
        { execution, historyEventFilterType: CLOSE_EVENT, skipArchival: true },
        ms,
      ).catch(notFoundAsRunNotFound(workflowId));
      const event = page.history?.events?.[0];
      if (!event) return undefined;
      const next = continuedIn(event);
      if (next) {
        execution = { workflowId, runId: next };
        continue;
      }
      return endingOf(event);
    }
  }

  /** Who terminated this run (its close event's identity; Temporal's resetter for a Reset); none if not terminated. */
  async terminatedBy(workflowId: string, runId: string, ms = 10_000): Promise<string | undefined> {
    const page = await this.call(
      'GetWorkflowExecutionHistory',
      { execution: { workflowId, runId }, historyEventFilterType: CLOSE_EVENT, skipArchival: true },
      ms,
    ).catch(notFoundAsRunNotFound(workflowId));
    return page.history?.events?.[0]?.workflowExecutionTerminatedEventAttributes?.identity || undefined;
  }

  /** Whether a worker completed a workflow task of this run yet (its first events say so). */
  async hasRunAWorkflowTask(workflowId: string, runId: string, ms = 10_000): Promise<boolean> {
    const page = await this.call(
      'GetWorkflowExecutionHistory',
      { execution: { workflowId, runId }, maximumPageSize: 8 },
      ms,
    ).catch(notFoundAsRunNotFound(workflowId));
    return (page.history?.events ?? []).some((event) => event.eventType === WORKFLOW_TASK_COMPLETED);
  }

  /** The first payload of the run's input, from the first event of its history. */
  async input(workflowId: string, runId: string, ms = 10_000): Promise<unknown> {
    const page = await this.call(
      'GetWorkflowExecutionHistory',
      { execution: { workflowId, runId }, maximumPageSize: 1 },
      ms,
    );
    return firstValue(page.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input);
  }

  /** The runs a visibility query matches, newest first, page by page. */
  async *list(query: string, pageSize: number, ms = 10_000): AsyncGenerator<RunInfo> {
    let nextPageToken: Uint8Array | undefined;
    do {
      const page: ResponseOf<'ListWorkflowExecutions'> = await this.call(
        'ListWorkflowExecutions',
        { query, pageSize, ...(nextPageToken ? { nextPageToken } : {}) },
        ms,
      );
      for (const info of page.executions ?? []) yield runInfoOf(info);
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (nextPageToken);
  }

  /** How many workers polled this workflow task queue lately (the server forgets them after minutes). */
  async pollers(taskQueue: string, ms = 5_000): Promise<number> {
    const described = await this.call('DescribeTaskQueue', { taskQueue: { name: taskQueue } }, ms);
    return (described.pollers ?? []).length;
  }

  close(): void {
    this.session.close();
  }
}

function runInfoOf(info: temporal.api.workflow.v1.IWorkflowExecutionInfo): RunInfo {
  return {
    workflowId: info.execution?.workflowId ?? '',
    runId: info.execution?.runId ?? '',
    type: info.type?.name ?? '',
    taskQueue: info.taskQueue ?? '',
    status: STATUS_NAMES[info.status ?? 0] ?? 'UNKNOWN',
    startTime: dateOf(info.startTime),
    ...(info.closeTime ? { closeTime: dateOf(info.closeTime) } : {}),
    searchAttributes: searchAttributes(info.searchAttributes),
  };
}

function continuedIn(event: temporal.api.history.v1.IHistoryEvent): string | undefined {
  return (
    event.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ||
    event.workflowExecutionCompletedEventAttributes?.newExecutionRunId ||
    event.workflowExecutionFailedEventAttributes?.newExecutionRunId ||
    event.workflowExecutionTimedOutEventAttributes?.newExecutionRunId ||
    undefined
  );
}

/** The close event as the client SDK's `result()` reads it: the same messages, so outcomes read alike. */
function endingOf(event: temporal.api.history.v1.IHistoryEvent): RunEnding {
  if (event.workflowExecutionCompletedEventAttributes)
    return {
      closed: 'completed',
      result: firstValue(event.workflowExecutionCompletedEventAttributes.result),
    };
  const failure = event.workflowExecutionFailedEventAttributes?.failure;
  if (event.workflowExecutionFailedEventAttributes) {
    const failureType = failure?.applicationFailureInfo?.type || undefined;
    const detail = firstValue(failure?.applicationFailureInfo?.details);
    return {
      closed: 'failed',
      message: failure?.message ?? '',
      ...(failureType ? { failureType } : {}),
      ...(detail !== undefined ? { detail } : {}),
    };
  }
  if (event.workflowExecutionTerminatedEventAttributes)
    return {
      closed: 'terminated',
      message: event.workflowExecutionTerminatedEventAttributes.reason || 'Workflow execution terminated',
    };
  if (event.workflowExecutionTimedOutEventAttributes)
    return { closed: 'timed out', message: 'Workflow execution timed out' };
  return { closed: 'cancelled', message: 'Workflow canceled' };
}

const QUERY_BUSY_PAUSE_MS = 150;

async function askWhileBusy<T>(ask: () => Promise<T>, deadline: number): Promise<T> {
  for (;;) {
    try {
      return await ask();
    } catch (error) {
      const busy = error instanceof GrpcError && error.code === GrpcCode.RESOURCE_EXHAUSTED;
      if (!busy || Date.now() + QUERY_BUSY_PAUSE_MS >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, QUERY_BUSY_PAUSE_MS));
    }
  }
}

const notFoundAsRunNotFound = (workflowId: string) => (error: unknown) => {
  if (error instanceof GrpcError && error.code === GrpcCode.NOT_FOUND)
    throw new RunNotFound(`no run ${workflowId}: ${error.details}`);
  throw error;
};
