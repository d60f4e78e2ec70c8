import type { temporal } from '@temporalio/proto';
import { Root, type Type } from 'protobufjs/light';
import subset from './temporal-api.json';
import type { GrpcSession } from './grpc';

type Service = typeof temporal.api.workflowservice.v1;

/** The calls the reads make: request and response as Temporal's API types them. */
interface Calls {
  DescribeWorkflowExecution: [
    Service['DescribeWorkflowExecutionRequest']['prototype'],
    Service['DescribeWorkflowExecutionResponse']['prototype'],
  ];
  DescribeTaskQueue: [
    Service['DescribeTaskQueueRequest']['prototype'],
    Service['DescribeTaskQueueResponse']['prototype'],
  ];
  QueryWorkflow: [
    Service['QueryWorkflowRequest']['prototype'],
    Service['QueryWorkflowResponse']['prototype'],
  ];
  GetWorkflowExecutionHistory: [
    Service['GetWorkflowExecutionHistoryRequest']['prototype'],
    Service['GetWorkflowExecutionHistoryResponse']['prototype'],
  ];
  ListWorkflowExecutions: [
    Service['ListWorkflowExecutionsRequest']['prototype'],
    Service['ListWorkflowExecutionsResponse']['prototype'],
  ];
}
export type CallName = keyof Calls;
export type RequestOf<C extends CallName> = Partial<Calls[C][0]>;
export type ResponseOf<C extends CallName> = Calls[C][1];

const PACKAGE = 'temporal.api.workflowservice.v1';
let root: Root | undefined;
const typeOf = (name: string): Type => (root ??= Root.fromJSON(subset)).lookupType(`${PACKAGE}.${name}`);

/** One WorkflowService call through `session`, encoded and decoded with the cut root (see its generator). */
export async function call<C extends CallName>(
  session: GrpcSession,
  name: C,
  request: RequestOf<C>,
  deadline: number,
): Promise<ResponseOf<C>> {
  const requestType = typeOf(`${name}Request`);
  const bytes = requestType.encode(requestType.fromObject(request)).finish();
  const namespace = (request as { namespace?: string }).namespace;
  const answer = await session.unary(
    `/${PACKAGE}.WorkflowService/${name}`,
    bytes,
    deadline,
    namespace !== undefined ? { 'temporal-namespace': namespace } : {},
  );
  return typeOf(`${name}Response`).decode(answer) as unknown as ResponseOf<C>;
}
