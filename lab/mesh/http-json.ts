import http from 'node:http';
import { ZodError } from 'zod';
import { MeshRefusedError } from '../../mesh/errors';
import { firstIssueText } from '../../base/zod-issue';

/** What a route answers: a status and a JSON body. */
export interface Answer {
  status: number;
  body: unknown;
}

export type Route = (params: string[], body: unknown) => Promise<Answer>;

/** `METHOD /path/:param/...` → the handler; params are matched in order. */
export type Routes = Record<string, Route>;

const MAX_BODY = 4 * 1024 * 1024;

function match(routes: Routes, method: string, path: string): { route: Route; params: string[] } | undefined {
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  for (const [key, route] of Object.entries(routes)) {
    const [verb, pattern = ''] = key.split(' ');
    const want = pattern.split('/').filter(Boolean);
    if (verb !== method || want.length !== parts.length) continue;
    const params: string[] = [];
    if (want.every((w, i) => (w.startsWith(':') ? params.push(parts[i] ?? '') > 0 : w === parts[i])))
      return { route, params };
  }
  return undefined;
}

async function readBody(request: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new MeshRefusedError('the request body is too large');
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

/** What an error thrown by a route answers: a refusal 409 with its sentence, a bad body 400, else 500. */
function failed(error: unknown): Answer {
  if (error instanceof MeshRefusedError) return { status: 409, body: { refused: error.message } };
  if (error instanceof ZodError) return { status: 400, body: { error: firstIssueText(error) } };
  if (error instanceof SyntaxError) return { status: 400, body: { error: `not JSON: ${error.message}` } };
  return { status: 500, body: { error: error instanceof Error ? error.message : String(error) } };
}

/** A JSON HTTP server; resolves once it listens. */
export function serveJson(routes: Routes, host: string, port: number): Promise<http.Server> {
  const server = http.createServer((request, response) => {
    const send = ({ status, body }: Answer) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(`${JSON.stringify(body ?? null)}\n`);
    };
    const found = match(routes, request.method ?? 'GET', new URL(request.url ?? '/', 'http://x').pathname);
    if (!found) return send({ status: 404, body: { error: `no route ${request.method} ${request.url}` } });
    readBody(request)
      .then((body) => found.route(found.params, body))
      .then(send, (error: unknown) => send(failed(error)));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

/** The other side could not be reached or did not answer in time. */
export class Unreachable extends Error {
  override readonly name = 'Unreachable';
}

/** Calls a JSON route; a 409 is a refusal with its sentence, another non-2xx an Error, no answer Unreachable. */
export async function callJson(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 10_000,
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(new URL(path, base), {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    throw new Unreachable(`${base} does not answer (${cause})`);
  }
  const answer = (await response.json().catch(() => null)) as { refused?: string; error?: string } | null;
  if (response.status === 409) throw new MeshRefusedError(answer?.refused ?? 'refused');
  if (!response.ok) throw new Error(answer?.error ?? `${base}${path} answered ${response.status}`);
  return answer;
}
