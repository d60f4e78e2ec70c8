import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { successorSpec } from '../../mesh/local/scenarios/edge-flip-incident';
import { edgeFlip } from '../../workflows';
import { Timings, type EdgeFlipInputArg } from '../../workflows/contracts';
import { portsOf, seedEdgeFlip, stagingOnlySuccessor } from '../support/edge-flip-seed';
import { runbookWorld } from '../support/runbook-world';
import { closedFailing, decide, statusWhen, stepState, waitingAt } from '../support/runbooks';

const DEFAULTS = Timings.parse({});

/** The seeded input with the product's own probe deadline and bind window (the tests' are longer). */
function withDefaultProbe(input: EdgeFlipInputArg): EdgeFlipInputArg {
  const { probeDeadlineMs: _deadline, publicBindMs: _window, ...rest } = input.timings ?? {};
  return { ...input, timings: rest };
}

/** When the public address last stopped answering, and when it answered `marker` again, polled every 50 ms. */
async function darkUntil(address: string, marker: string, bound: Promise<unknown>) {
  let darkSince: number | undefined;
  let ended = false;
  void bound.finally(() => (ended = true));
  while (!ended) {
    const body = await fetch(`${address}/`, { signal: AbortSignal.timeout(1_000) })
      .then((r) => r.text())
      .catch(() => '');
    if (body.includes(marker) && darkSince !== undefined) return { darkSince, litAt: Date.now() };
    if (!body) darkSince ??= Date.now();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

describe('probe-public with the default timings, on a real Temporal dev server and the local mesh over real Docker', () => {
  it('a successor that never takes the public port is rolled back once nothing took it for publicBindMs, not after the whole probe deadline', async (t) => {
    await using world = await runbookWorld();
    const input = withDefaultProbe(await seedEdgeFlip(world));
    await world.mesh.defineModule(stagingOnlySuccessor(portsOf(input)));
    const handle = await world.start(edgeFlip, input);
    await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    await decide(handle, 'approve');

    const outage = darkUntil(
      input.publicAddress,
      'served by caddy',
      handle.result().catch(() => undefined),
    );
    const { status } = await closedFailing(handle);
    assert.equal(status.phase, 'rolled-back', status.outcome);
    const probe = status.steps.find((s) => s.name === 'probe-public');
    assert.equal(probe?.state, 'failed');
    assert.match(
      probe?.note ?? '',
      new RegExp(
        `nothing took ${input.publicAddress} within ${DEFAULTS.publicBindMs / 1000} s: 3 of 3 names failed`,
      ),
    );
    const probedMs = Date.parse(probe?.endedAt ?? '') - Date.parse(probe?.startedAt ?? '');
    assert.ok(
      probedMs < DEFAULTS.probeDeadlineMs,
      `probe-public gave up before its deadline (${probedMs} ms)`,
    );
    assert.equal(stepState(status, 'restart-predecessor'), 'compensated');
    const dark = await outage;
    assert.ok(dark, 'the names went dark and the predecessor served again');
    t.diagnostic(
      `names dark for ${dark.litAt - dark.darkSince} ms with the default timings (probe-public ${probedMs} ms)`,
    );
  });

  it('a successor that took the public port but answers wrongly at first is probed until it answers, past the bind window', async () => {
    await using world = await runbookWorld();
    const input = withDefaultProbe(await seedEdgeFlip(world));
    const ports = portsOf(input);
    const spec = successorSpec('route-proxy', ports);
    // It takes the public port once caddy frees it, and serves its own page there only 6 s later (twice
    // the bind window): a proxy still loading its routes.
    const serve = [
      'mkdir -p /www /public && echo "served by route-proxy" > /www/index.html',
      'echo "loading routes" > /public/index.html',
      `httpd -p 127.0.0.1:${ports.stagingPort} -h /www`,
      `until httpd -p 127.0.0.1:${ports.publicPort} -h /public; do sleep 0.5; done`,
      'sleep 6 && cp /www/index.html /public/index.html',
      'exec sleep 1000000',
    ].join('; ');
    await world.mesh.defineModule({
      ...spec,
      containers: spec.containers.map((c) =>
        c.name === 'edge' ? { ...c, command: ['sh', '-c', serve] } : c,
      ),
    });
    const handle = await world.start(edgeFlip, input);
    await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    await decide(handle, 'approve');
    const done = await handle.result();
    assert.equal(done.phase, 'completed', done.outcome);
    assert.match(done.steps.find((s) => s.name === 'probe-public')?.note ?? '', /^3\/3 names answered 200/);
  });
});
