import http from 'node:http';
import https from 'node:https';

/** At most this much of a body is read when looking for a marker. */
const MAX_BODY_BYTES = 1024 * 1024;

/** An answer, or why there was none (`refused`: the connection was refused, nothing listens there). */
export type GetOutcome =
  { status: number; body: string; header?: string } | { error: string; refused?: true };

function describe(error: unknown): string {
  const e = error as { message?: string; code?: string };
  return e.message || e.code || String(error);
}

/**
 * GET / at `address` with `Host: name` (node:http, since fetch refuses to set Host). Over https the name
 * is also the TLS server name, so certificates are checked for the public name. Never rejects: a refused
 * connection or an answer (headers and body) slower than `timeoutMs` comes back as `error`. With
 * `header`, that answer header's value comes back too ('' when the answer has none).
 */
export function getWithHost(
  address: URL,
  name: string,
  timeoutMs: number,
  readBody: boolean,
  header?: string,
): Promise<GetOutcome> {
  const secure = address.protocol === 'https:';
  return new Promise((resolve) => {
    const request = (secure ? https : http).request({
      hostname: address.hostname.replace(/^\[|\]$/g, ''),
      port: address.port || (secure ? 443 : 80),
      path: '/',
      method: 'GET',
      headers: { host: name, 'user-agent': 'mesh-runbook-probe' },
      agent: false,
      ...(secure ? { servername: name } : {}),
    });
    // The first outcome wins; later events (e.g. the error of the destroy below) change nothing.
    const finish = (outcome: GetOutcome) => {
      clearTimeout(timer);
      resolve(outcome);
    };
    const timer = setTimeout(() => {
      finish({ error: `no complete answer within ${timeoutMs} ms` });
      request.destroy();
    }, timeoutMs);
    request.on('error', (error) =>
      finish({
        error: describe(error),
        ...((error as { code?: string }).code === 'ECONNREFUSED' ? { refused: true as const } : {}),
      }),
    );
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const value = header === undefined ? undefined : response.headers[header.toLowerCase()];
      const answered =
        value === undefined && header === undefined ? {} : { header: [value ?? ''].flat().join(', ') };
      response.on('error', (error) => finish({ error: describe(error) }));
      response.on('close', () => finish({ error: 'the connection closed before the answer ended' }));
      if (!readBody) {
        response.resume();
        response.on('end', () => finish({ status, body: '', ...answered }));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        if (size < MAX_BODY_BYTES) chunks.push(chunk);
        size += chunk.length;
      });
      response.on('end', () => finish({ status, body: Buffer.concat(chunks).toString('utf8'), ...answered }));
    });
    request.end();
  });
}
