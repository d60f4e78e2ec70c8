import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createProbeActivities, summariseProbes, type ProbeResult } from '../../activities/probes';

/** Answers per Host header like an edge proxy: known names 200 with a marker, others 404; `slow.example` never. */
function edgeProxy(): Server {
  return createServer((request, response) => {
    const host = request.headers.host ?? '';
    if (host === 'slow.example') return; // holds the connection open until the probe gives up
    if (host === 'broken.example') return void response.writeHead(502).end('bad gateway');
    if (host === 'old.example') return void response.writeHead(200).end('served by the predecessor');
    // The fleet's first node answering for every node: its own name in the answer header.
    if (host === 'edge1.example')
      return void response.writeHead(200, { 'x-served-by': 'edge1' }).end('successor-7 serving');
    if (host === 'bare.example') return void response.writeHead(200).end('successor-7 serving');
    if (host === 'hostile.example')
      return void response.writeHead(200, { 'x-served-by': 'edge1\u009b2J' }).end('successor-7');
    if (host.endsWith('.example')) return void response.writeHead(200).end(`successor-7 serving ${host}`);
    response.writeHead(404).end('unknown name');
  });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('probePublicNames against a real HTTP server on 127.0.0.1', () => {
  const { probePublicNames } = createProbeActivities();
  const server = edgeProxy();
  let address = '';
  let closedAddress = '';

  before(async () => {
    address = await listen(server);
    const closed = createServer();
    closedAddress = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends each name as the Host header and passes names that answer the expected status', async () => {
    const results = await probePublicNames({
      address,
      names: ['a.example', 'b.example', 'c.example'],
      expectStatus: 200,
      timeoutMs: 2000,
    });
    assert.deepEqual(results, [
      { name: 'a.example', ok: true, status: 200 },
      { name: 'b.example', ok: true, status: 200 },
      { name: 'c.example', ok: true, status: 200 },
    ]);
    assert.equal(
      summariseProbes(results, { address, expectStatus: 200 }),
      `3/3 names answered 200 from ${address}`,
    );
  });

  it('checks the marker, so the predecessor cannot pass for the successor', async () => {
    const results = await probePublicNames({
      address,
      names: ['a.example', 'old.example'],
      expectStatus: 200,
      marker: 'successor-7',
      timeoutMs: 2000,
    });
    assert.deepEqual(results, [
      { name: 'a.example', ok: true, status: 200, markerFound: true },
      { name: 'old.example', ok: false, status: 200, markerFound: false },
    ]);
  });

  it("fails an answer whose node header names another node, or none: another node's answer never passes", async () => {
    const results = await probePublicNames({
      address,
      names: ['edge1.example', 'bare.example'],
      expectStatus: 200,
      marker: 'successor-7',
      node: 'edge2',
      nodeHeader: 'X-Served-By',
      timeoutMs: 2000,
    });
    assert.deepEqual(results, [
      { name: 'edge1.example', ok: false, status: 200, markerFound: true, answeredBy: 'edge1' },
      { name: 'bare.example', ok: false, status: 200, markerFound: true, answeredBy: '' },
    ]);
    assert.equal(
      summariseProbes(results, { address, expectStatus: 200, node: 'edge2', nodeHeader: 'X-Served-By' }),
      `0/2 names answered 200 from ${address}; edge1.example answered 200 from edge1, not edge2 (X-Served-By); bare.example answered 200 without X-Served-By naming a node`,
    );
    const own = await probePublicNames({
      address,
      names: ['edge1.example'],
      expectStatus: 200,
      node: 'edge1',
      nodeHeader: 'x-served-by',
      timeoutMs: 2000,
    });
    assert.deepEqual(own, [{ name: 'edge1.example', ok: true, status: 200, answeredBy: 'edge1' }]);
    const [hostile] = await probePublicNames({
      address,
      names: ['hostile.example'],
      expectStatus: 200,
      node: 'edge1',
      nodeHeader: 'X-Served-By',
      timeoutMs: 2000,
    });
    assert.equal(hostile?.ok, false);
    assert.equal(
      hostile?.answeredBy,
      'edge1\\u009b2J',
      "the node's header is shown, never sent to a terminal",
    );
  });

  it('fails a name that answers another status', async () => {
    const results = await probePublicNames({
      address,
      names: ['broken.example', 'unknown.test'],
      expectStatus: 200,
      timeoutMs: 2000,
    });
    assert.deepEqual(results, [
      { name: 'broken.example', ok: false, status: 502 },
      { name: 'unknown.test', ok: false, status: 404 },
    ]);
  });

  it('reports a refused connection as a result, not a throw', async () => {
    const [result] = await probePublicNames({
      address: closedAddress,
      names: ['a.example'],
      expectStatus: 200,
      timeoutMs: 2000,
    });
    assert.equal(result?.ok, false);
    assert.equal(result?.status, undefined);
    assert.match(result?.error ?? '', /ECONNREFUSED/);
  });

  it('gives up on a name that does not answer within the timeout, and still reports the others', async () => {
    const started = Date.now();
    const results = await probePublicNames({
      address,
      names: ['slow.example', 'a.example'],
      expectStatus: 200,
      timeoutMs: 300,
    });
    assert.ok(Date.now() - started < 2000, 'the probe did not wait past its timeout');
    assert.deepEqual(results, [
      { name: 'slow.example', ok: false, error: 'no complete answer within 300 ms' },
      { name: 'a.example', ok: true, status: 200 },
    ]);
  });

  it('refuses an address with a path as invalid input', async () => {
    await assert.rejects(
      probePublicNames({ address: `${address}/x`, names: ['a.example'], expectStatus: 200, timeoutMs: 100 }),
      {
        type: 'InvalidInput',
        nonRetryable: true,
      },
    );
  });
});

describe('probeUntilServed against a real HTTP server that turns to the successor', () => {
  it('tries again at most 50 ms apart, as the shell flip does, until the successor answers', async () => {
    let requests = 0;
    const server = createServer((_request, response) => {
      requests += 1;
      response
        .writeHead(200)
        .end(requests <= 8 ? 'served by the predecessor' : 'successor-7 serving a.example');
    });
    const address = await listen(server);
    const pauses: number[] = [];
    const env = new MockActivityEnvironment();
    env.on('heartbeat', (details: { retryingInMs?: number }) => {
      if (details.retryingInMs !== undefined) pauses.push(details.retryingInMs);
    });
    try {
      const { probeUntilServed } = createProbeActivities();
      const results = await env.run(probeUntilServed, {
        address,
        names: ['a.example'],
        expectStatus: 200,
        marker: 'successor-7',
        timeoutMs: 2000,
        deadlineMs: 30_000,
      });
      assert.deepEqual(results, [{ name: 'a.example', ok: true, status: 200, markerFound: true }]);
      assert.equal(pauses.length, 8, 'one pause after each answer from the predecessor');
      assert.ok(Math.max(...pauses) <= 50, `pauses between tries: ${pauses.join(', ')} ms`);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('probeUntilServed with a bind window, against a real address', () => {
  it('stops once every connection was refused for bindWithinMs: nothing took the port', async () => {
    const closed = createServer();
    const address = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    const { probeUntilServed } = createProbeActivities();
    const started = Date.now();
    const results: ProbeResult[] = await new MockActivityEnvironment().run(probeUntilServed, {
      address,
      names: ['a.example', 'b.example'],
      expectStatus: 200,
      timeoutMs: 2000,
      deadlineMs: 120_000,
      bindWithinMs: 500,
    });
    assert.deepEqual(
      results.map((r) => [r.name, r.ok, r.refused]),
      [
        ['a.example', false, true],
        ['b.example', false, true],
      ],
    );
    assert.ok(Date.now() - started < 120_000, 'it did not probe until the deadline');
  });

  it('probes on past the window once anything answered, until the answer is right', async () => {
    let requests = 0;
    const server = createServer((_request, response) => {
      requests += 1;
      response.writeHead(requests <= 20 ? 503 : 200).end('successor-7 serving');
    });
    const address = await listen(server);
    try {
      const { probeUntilServed } = createProbeActivities();
      const results = await new MockActivityEnvironment().run(probeUntilServed, {
        address,
        names: ['a.example'],
        expectStatus: 200,
        marker: 'successor-7',
        timeoutMs: 2000,
        deadlineMs: 120_000,
        bindWithinMs: 1,
      });
      assert.deepEqual(results, [{ name: 'a.example', ok: true, status: 200, markerFound: true }]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
