import { readFileSync } from 'node:fs';
import type Dockerode from 'dockerode';
import { DockerEngine } from './engine';
import {
  DockerEndpointsConfig,
  type DockerEndpoint,
  type DockerEndpointsConfigInput,
} from './endpoint-config';
import { firstIssueText } from '../base/zod-issue';

export { DockerEndpoint, DockerEndpointsConfig, type DockerEndpointsConfigInput } from './endpoint-config';

/** What the mapping needs from the worker's machine, passed in so the mapping stays testable. */
export interface EndpointHost {
  readFile(path: string): Buffer;
  sshAuthSock?: string | undefined;
}

const realHost: EndpointHost = {
  readFile: (path) => readFileSync(path),
  sshAuthSock: process.env.SSH_AUTH_SOCK,
};

/** The dockerode options for one endpoint. */
export function dockerodeOptions(
  endpoint: DockerEndpoint,
  host: EndpointHost = realHost,
): Dockerode.DockerOptions {
  if ('socket' in endpoint) return { socketPath: endpoint.socket };
  if ('tcp' in endpoint) {
    const { host: address, port, ca, cert, key } = endpoint.tcp;
    const tls = ca !== undefined || cert !== undefined;
    return {
      protocol: tls ? 'https' : 'http',
      host: address,
      port,
      ...(ca !== undefined ? { ca: host.readFile(ca) } : {}),
      ...(cert !== undefined ? { cert: host.readFile(cert) } : {}),
      ...(key !== undefined ? { key: host.readFile(key) } : {}),
    };
  }
  const { host: address, port, username, privateKey } = endpoint.ssh;
  const sshOptions =
    privateKey !== undefined ? { privateKey: host.readFile(privateKey) } : { agent: host.sshAuthSock };
  return {
    protocol: 'ssh',
    host: address,
    port,
    ...(username !== undefined ? { username } : {}),
    sshOptions,
  };
}

/** The endpoints config does not parse; the message names the field to fix. */
export class DockerEndpointsConfigError extends Error {
  override readonly name = 'DockerEndpointsConfigError';
}

/** `(node) => DockerEngine` for a config; nodes that share an endpoint share one engine client. */
export function dockerResolver(
  config: DockerEndpointsConfigInput = {},
  host: EndpointHost = realHost,
): (node: string) => DockerEngine {
  const parsed = DockerEndpointsConfig.safeParse(config);
  if (!parsed.success) {
    const problem = firstIssueText(parsed.error, 'the config');
    throw new DockerEndpointsConfigError(`Invalid Docker endpoints config: ${problem}.`);
  }
  const { default: fallback, nodes } = parsed.data;
  const engines = new Map<string, DockerEngine>();
  return (node) => {
    const endpoint = nodes[node] ?? fallback;
    const key = JSON.stringify(endpoint);
    let engine = engines.get(key);
    if (!engine) engines.set(key, (engine = new DockerEngine(dockerodeOptions(endpoint, host))));
    return engine;
  };
}
