import { connect, constants, type ClientHttp2Session, type OutgoingHttpHeaders } from 'node:http2';
import type { TemporalConnectionOptions } from '../../config';

/** gRPC's status codes that the reads tell apart; any other is reported by its number and message. */
export const GrpcCode = {
  UNKNOWN: 2,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  RESOURCE_EXHAUSTED: 8,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

export class GrpcError extends Error {
  override readonly name = 'GrpcError';
  constructor(
    readonly code: number,
    readonly details: string,
  ) {
    super(`${code} ${codeName(code)}: ${details}`);
  }
}

const CODE_NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
];
const codeName = (code: number) => CODE_NAMES[code] ?? 'UNKNOWN';

/**
 * Unary gRPC calls over Node's own HTTP/2, for the few reads `status` and `list` make: @grpc/grpc-js and
 * Temporal's client SDK cost more to load than those commands take to answer. One session per command.
 */
export class GrpcSession {
  private session: ClientHttp2Session | undefined;
  private readonly headers: OutgoingHttpHeaders;

  constructor(private readonly options: TemporalConnectionOptions) {
    this.headers = {
      ...(options.metadata ?? {}),
      ...(options.apiKey !== undefined ? { authorization: `Bearer ${options.apiKey}` } : {}),
    };
  }

  /** The open session, or a new one when the last was closed (a server restart, a dropped connection). */
  private live(): ClientHttp2Session {
    if (this.session && !this.session.closed && !this.session.destroyed) return this.session;
    const tls = this.options.tls === true ? {} : this.options.tls || undefined;
    const authority = `${tls ? 'https' : 'http'}://${this.options.address}`;
    const session = connect(
      authority,
      tls
        ? {
            ...(tls.serverRootCACertificate ? { ca: Buffer.from(tls.serverRootCACertificate) } : {}),
            ...(tls.clientCertPair
              ? { cert: Buffer.from(tls.clientCertPair.crt), key: Buffer.from(tls.clientCertPair.key) }
              : {}),
            ...(tls.serverNameOverride ? { servername: tls.serverNameOverride } : {}),
          }
        : {},
    );
    // A failed connect is reported by the call that waits on it; this keeps it from being an uncaught error.
    session.on('error', () => undefined);
    return (this.session = session);
  }

  /** One request, one response; rejects with GrpcError for a non-OK status or when `deadline` passes. */
  unary(path: string, request: Uint8Array, deadline: number, extra: OutgoingHttpHeaders = {}) {
    return new Promise<Buffer>((resolve, reject) => {
      const left = Math.max(1, deadline - Date.now());
      const stream = this.live().request({
        ...this.headers,
        ...extra,
        [constants.HTTP2_HEADER_METHOD]: 'POST',
        [constants.HTTP2_HEADER_PATH]: path,
        'content-type': 'application/grpc',
        te: 'trailers',
        'grpc-timeout': `${left}m`,
      });
      const timer = setTimeout(() => {
        stream.close(constants.NGHTTP2_CANCEL);
        reject(new GrpcError(GrpcCode.DEADLINE_EXCEEDED, `no answer within ${left} ms`));
      }, left);
      const chunks: Buffer[] = [];
      let status: Record<string, unknown> = {};
      stream.on('response', (headers) => (status = headers));
      stream.on('trailers', (trailers) => (status = { ...status, ...trailers }));
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      stream.on('end', () => {
        clearTimeout(timer);
        const code = Number(status['grpc-status'] ?? 2);
        if (code !== 0) {
          const message = decodeURIComponent(String(status['grpc-message'] ?? ''));
          return reject(new GrpcError(code, message || `HTTP ${String(status[':status'])}`));
        }
        resolve(unframed(Buffer.concat(chunks)));
      });
      stream.end(framed(request));
    });
  }

  close(): void {
    this.session?.close();
  }
}

/** gRPC's length-prefixed message: a compression flag (0: none), the length, the bytes. */
function framed(message: Uint8Array): Buffer {
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

function unframed(body: Buffer): Buffer {
  if (body.length < 5) return Buffer.alloc(0);
  if (body[0] !== 0)
    throw new GrpcError(13, 'the server sent a compressed message, which mesh does not ask for');
  return body.subarray(5, 5 + body.readUInt32BE(1));
}
