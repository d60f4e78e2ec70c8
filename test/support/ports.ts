import { createServer } from 'node:net';
import { freeLocalPort } from '../../worker/ports';

/**
 * Hands out ports of a range `<first>-<last>` (the harness gives each test file one, below the kernel's
 * ephemeral ports: files running side by side never pick the same port, and no outgoing connection takes
 * one between its pick and its bind), each free on 0.0.0.0 and 127.0.0.1 right now, never one handed out
 * before until the range wraps. Without a range, the OS picks.
 */
export function portPicker(range: string | undefined): () => Promise<number> {
  const match = /^(\d+)-(\d+)$/.exec(range ?? '');
  if (!match) return freeLocalPort;
  const [first, last] = [Number(match[1]), Number(match[2])];
  let next: number | undefined;
  return async () => {
    for (let tried = first; tried <= last; tried++) {
      // Taken before the await: callers side by side never get the same port.
      const port = (next = next === undefined || next >= last ? first : next + 1);
      if (await bindable(port)) return port;
    }
    throw new Error(`no port of ${range} is free`);
  };
}

let own: (() => Promise<number>) | undefined;

/** A TCP port free right now, of this test file's own range (MESH_TEST_PORTS) when the harness gave one. */
export function freePort(): Promise<number> {
  own ??= portPicker(process.env.MESH_TEST_PORTS);
  return own();
}

async function bindable(port: number): Promise<boolean> {
  return (await listensOn(port, '0.0.0.0')) && (await listensOn(port, '127.0.0.1'));
}

function listensOn(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}
