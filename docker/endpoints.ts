import { readFileSync } from 'node:fs';
import type Dockerode from 'dockerode';
import { z } from 'zod';
import { DEFAULT_SOCKET, DockerEngine } from './engine';
import { AbsolutePath, Name } from '../mesh/schemas';
import { firstIssueText } from '../mesh/zod-issue';

/** How the worker reaches one node's Docker engine (docs/design.md §4): unix socket, tcp (+TLS), or ssh. */
const Port = z.number().int().min(1).max(65535);
const SocketEndpoint = z.object({ socket: AbsolutePath }).strict();
const TcpEndpoint = z
  .object({
    tcp: z
      .object({
        host: z.string().min(1),
        port: Port,
        /** PEM files on the worker's machine; any of them turns TLS on. */
        ca: AbsolutePath.optional(),
        cert: AbsolutePath.optional(),
        key: AbsolutePath.optional(),
      })
      .strict()
      .refine((t) => (t.cert === undefined) === (t.key === undefined), 'cert and key go together'),
  })
  .strict();
const SshEndpoint = z
  .object({
    ssh: z
      .object({
        host: z.string().min(1),
        port: Port.default(22),
        username: z.string().min(1).optional(),
        /** A private key file; without it the ssh agent (SSH_AUTH_SOCK) authenticates. */
        privateKey: AbsolutePath.optional(),
      })
      .strict(),
  })
  .strict();
export const DockerEndpoint = z.union([SocketEndpoint, TcpEndpoint, SshEndpoint]);
export type DockerEndpoint = z.infer<typeof DockerEndpoint>;

export const DockerEndpointsConfig = z
  .object({
    /** For every node not listed under `nodes`; the local socket when left out. */
    default: DockerEndpoint.default({ socket: DEFAULT_SOCKET }),
    nodes: z.record(Name, DockerEndpoint).default({}),
  })
  .strict();
export type DockerEndpointsConfig = z.infer<typeof DockerEndpointsConfig>;
export type DockerEndpointsConfigInput = z.input<typeof DockerEndpointsConfig>;

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
