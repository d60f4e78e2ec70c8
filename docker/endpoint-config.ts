import { z } from 'zod';
import { AbsolutePath, Name } from '../base/value-schemas';

/** Where Docker listens on a machine that says nothing else. */
export const DEFAULT_SOCKET = '/var/run/docker.sock';

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
