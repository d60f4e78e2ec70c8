import type { temporal } from '@temporalio/proto';
import { Root, type Type } from 'protobufjs/light';
import subset from './temporal-api.json';
import { SERVICE_PACKAGE as PACKAGE, type CallName } from './calls';
import type { GrpcSession } from './grpc';

type Service = typeof temporal.api.workflowservice.v1;

/** Request and response of a call, as Temporal's API types them. */
type Message<C extends CallName, Part extends 'Request' | 'Response'> = Service[`${C}${Part}`]['prototype'];
export type RequestOf<C extends CallName> = Partial<Message<C, 'Request'>>;
export type ResponseOf<C extends CallName> = Message<C, 'Response'>;

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
