import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as protobuf from 'protobufjs';
import { CALLS, SERVICE_PACKAGE as SERVICE } from '../client/temporal-reads/calls';

/**
 * The part of Temporal's API that `mesh runbook status` and `list` read, cut from the SDK's own protobuf
 * root: building that whole root is most of the third of a second `@temporalio/client` takes to load.
 * Messages named in FIELDS keep only those fields; protobuf skips the others when it decodes, so a cut
 * message still reads what the server sends. Written to client/temporal-reads/temporal-api.json.
 */

const FIELDS: Record<string, string[]> = {
  [`${SERVICE}.DescribeWorkflowExecutionResponse`]: [
    'workflowExecutionInfo',
    'pendingActivities',
    'workflowExtendedInfo',
  ],
  'temporal.api.workflow.v1.WorkflowExecutionExtendedInfo': ['resetRunId'],
  [`${SERVICE}.DescribeTaskQueueResponse`]: ['pollers'],
  [`${SERVICE}.QueryWorkflowResponse`]: ['queryResult', 'queryRejected'],
  [`${SERVICE}.GetWorkflowExecutionHistoryResponse`]: ['history', 'nextPageToken'],
  [`${SERVICE}.ListWorkflowExecutionsResponse`]: ['executions', 'nextPageToken'],
  'temporal.api.workflow.v1.WorkflowExecutionInfo': [
    'execution',
    'type',
    'startTime',
    'closeTime',
    'status',
    'searchAttributes',
    'taskQueue',
  ],
  'temporal.api.workflow.v1.PendingActivityInfo': ['activityId', 'activityType', 'heartbeatDetails'],
  'temporal.api.taskqueue.v1.PollerInfo': ['lastAccessTime', 'identity'],
  'temporal.api.history.v1.HistoryEvent': [
    'eventId',
    'eventType',
    'workflowExecutionStartedEventAttributes',
    'workflowExecutionCompletedEventAttributes',
    'workflowExecutionFailedEventAttributes',
    'workflowExecutionTimedOutEventAttributes',
    'workflowExecutionCanceledEventAttributes',
    'workflowExecutionTerminatedEventAttributes',
    'workflowExecutionContinuedAsNewEventAttributes',
  ],
  'temporal.api.history.v1.WorkflowExecutionStartedEventAttributes': ['input'],
  'temporal.api.history.v1.WorkflowExecutionCompletedEventAttributes': ['result', 'newExecutionRunId'],
  'temporal.api.history.v1.WorkflowExecutionFailedEventAttributes': ['failure', 'newExecutionRunId'],
  'temporal.api.history.v1.WorkflowExecutionTimedOutEventAttributes': ['newExecutionRunId'],
  'temporal.api.history.v1.WorkflowExecutionCanceledEventAttributes': [],
  'temporal.api.history.v1.WorkflowExecutionTerminatedEventAttributes': ['reason', 'identity'],
  'temporal.api.history.v1.WorkflowExecutionContinuedAsNewEventAttributes': ['newExecutionRunId'],
  'temporal.api.failure.v1.Failure': ['message', 'cause', 'applicationFailureInfo'],
  'temporal.api.failure.v1.ApplicationFailureInfo': ['type', 'details'],
};

type Json = Record<string, unknown>;

function sdkRoot(): protobuf.Root {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the SDK's generated root, plain JS
  const root = require('@temporalio/proto/protos/json-module') as protobuf.Root;
  root.resolveAll();
  return root;
}

const fullName = (reflection: protobuf.ReflectionObject) => reflection.fullName.replace(/^\./, '');

/** The cut messages and every message and enum they reach, by full name, with their JSON. */
function reachable(root: protobuf.Root): Map<string, Json> {
  const kept = new Map<string, Json>();
  const visit = (type: protobuf.Type | protobuf.Enum) => {
    const name = fullName(type);
    if (kept.has(name)) return;
    const json = { ...(type.toJSON() as unknown as Json) };
    delete json.nested;
    kept.set(name, json);
    if (type instanceof protobuf.Enum) return;
    const only = FIELDS[name];
    const fields = Object.values(type.fields).filter((field) => !only || only.includes(field.name));
    json.fields = Object.fromEntries(fields.map((field) => [field.name, field.toJSON()]));
    const oneofs = Object.values(type.oneofs ?? {})
      .map((oneof) => ({
        name: oneof.name,
        members: oneof.oneof.filter((member) => fields.some((field) => field.name === member)),
      }))
      .filter(({ members }) => members.length > 0);
    if (oneofs.length > 0)
      json.oneofs = Object.fromEntries(oneofs.map(({ name, members }) => [name, { oneof: members }]));
    else delete json.oneofs;
    for (const field of fields) {
      if (field.resolvedType) visit(field.resolvedType);
    }
  };
  const service = root.lookupService(`${SERVICE}.WorkflowService`);
  for (const call of CALLS) {
    const method = service.methods[call];
    if (!method) throw new Error(`${SERVICE}.WorkflowService has no method ${call}`);
    method.resolve();
    if (method.resolvedRequestType) visit(method.resolvedRequestType);
    if (method.resolvedResponseType) visit(method.resolvedResponseType);
  }
  return kept;
}

/** protobufjs JSON: namespaces nest by the parts of each full name. */
export function temporalApiSubset(): Json {
  const nested: Json = {};
  const kept = reachable(sdkRoot());
  for (const name of [...kept.keys()].sort()) {
    const parts = name.split('.');
    let at = nested;
    for (const part of parts.slice(0, -1)) {
      const holder = (at[part] ??= {}) as Json;
      at = (holder.nested ??= {}) as Json;
    }
    const last = parts.at(-1) as string;
    const existing = (at[last] ?? {}) as Json;
    at[last] = { ...kept.get(name), ...(existing.nested ? { nested: existing.nested } : {}) };
  }
  return { nested };
}

export const SUBSET_FILE = join(__dirname, '..', 'client', 'temporal-reads', 'temporal-api.json');

if (require.main === module) {
  writeFileSync(SUBSET_FILE, `${JSON.stringify(temporalApiSubset())}\n`);
  console.log(`wrote ${SUBSET_FILE}`);
}
