import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type WorkflowHandle } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { hostRootFromMesh } from '../activities';
import { startEdgeFlipFleet } from '../client/start-fleet';
import { startRunbook } from '../client/start-runbook';
import { removeNodeContainers } from '../docker/cleanup';
import { dockerResolver } from '../docker/endpoints';
import { acquireLock, LocalMesh } from '../mesh/local';
import { seedEdgeFleet } from '../mesh/local/scenarios/edge-fleet';
import { forward } from '../test/support/edge-flip-fleet';
import { decide, FAST_TIMINGS, freePort } from '../test/support/runbooks';
import { testPolicy } from '../test/support/test-policy';
import { createRunbookWorker } from '../worker/create-worker';
import { edgeFlip, edgeFlipFleet } from '../workflows';
import {
  runbookWorkflowId,
  statusQuery,
  type EdgeFlipInputArg,
  type RunbookStatus,
} from '../workflows/contracts';
import { ephemeralDevServer } from '../worker/ephemeral-dev-server';

/**
 * Wall time of four edge flips (the third node holding route-proxy's leftovers) as four single runbooks one
 * after another, against one fleet runbook (wave size 1, and 3 after the canary), side by side in one run
 * on one dev server, worker and local mesh. Every wait is answered as soon as it shows (take, else approve,
 * else recheck), on the node itself, as an operator watching would.
 *
 *   npx tsx scripts/bench-fleet.ts [rounds]
 */

const TASK_QUEUE = 'bench-fleet';
const POLL_MS = 250;
let seq = 0;

async function seedFour(mesh: LocalMesh): Promise<EdgeFlipInputArg[]> {
  const round = seq++;
  const nodes = [];
  for (let i = 0; i < 4; i++)
    nodes.push({
      node: `bfleet${round}-${i}`,
      publicPort: await freePort(),
      stagingPort: await freePort(),
      leftovers: i === 2,
    });
  const seeded = await seedEdgeFleet(mesh, { predecessor: 'caddy', successor: 'route-proxy', nodes });
  return seeded.map((s) => ({
    ...s,
    module: 'route-proxy',
    predecessor: 'caddy',
    startedBy: 'bench',
    timings: FAST_TIMINGS,
  }));
}

const ended = (s: RunbookStatus) => !['running', 'waiting'].includes(s.phase);

/** Answers the runbook's waits as they show, until it ends. */
async function answerUntilEnd(handle: WorkflowHandle): Promise<RunbookStatus> {
  for (;;) {
    const status = await handle.query(statusQuery);
    if (ended(status)) return status;
    if (status.waiting)
      await decide(handle, forward(status.waiting.actions), undefined, 'reviewer').catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Answers, on the node itself, each wait the fleet waits for, until the fleet ends. */
async function answerFleet(client: Client, fleet: WorkflowHandle): Promise<RunbookStatus> {
  for (;;) {
    const status = await fleet.query(statusQuery);
    if (ended(status)) return status;
    if (status.waiting) {
      const own = client.workflow.getHandle(runbookWorkflowId(status.waiting.gate));
      const waiting = (await own.query(statusQuery)).waiting;
      if (waiting) await decide(own, forward(waiting.actions), undefined, 'reviewer').catch(() => undefined);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function singles(client: Client, mesh: LocalMesh): Promise<number> {
  const inputs = await seedFour(mesh);
  const started = Date.now();
  for (const input of inputs) {
    const status = await answerUntilEnd(
      await startRunbook(client, edgeFlip, input, { taskQueue: TASK_QUEUE }),
    );
    if (status.phase !== 'completed')
      throw new Error(`${input.node} ended ${status.phase}: ${status.outcome}`);
  }
  return Date.now() - started;
}

async function fleet(client: Client, mesh: LocalMesh, waveSize: number): Promise<number> {
  const runbooks = await seedFour(mesh);
  const started = Date.now();
  const handle = await startEdgeFlipFleet(
    client,
    edgeFlipFleet,
    { module: 'route-proxy', runbooks, waveSize, startedBy: 'bench' },
    { taskQueue: TASK_QUEUE },
  );
  const status = await answerFleet(client, handle);
  if (status.phase !== 'completed') throw new Error(`the fleet ended ${status.phase}: ${status.outcome}`);
  await handle.result();
  return Date.now() - started;
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 1);
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const stateDir = await mkdtemp(join(tmpdir(), 'mesh-bench-fleet-'));
  const mesh = new LocalMesh({ stateDir });
  const env = await TestWorkflowEnvironment.createLocal({
    server: ephemeralDevServer(),
  });
  const nodes = () =>
    Array.from({ length: seq }, (_, r) => [0, 1, 2, 3].map((i) => `bfleet${r}-${i}`)).flat();
  try {
    const worker = await createRunbookWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      deps: {
        mesh,
        dockerFor: dockerResolver({}),
        hostRootOf: hostRootFromMesh(mesh),
        stateDir: join(stateDir, 'runbook'),
        policy: testPolicy(),
      },
      nodeQueues: { localMesh: stateDir },
      taskQueue: TASK_QUEUE,
      identity: 'bench-fleet',
    });
    const client = new Client({ connection: env.connection, namespace: env.namespace ?? 'default' });
    await worker.runUntil(async () => {
      for (let round = 1; round <= rounds; round++) {
        const one = await singles(client, mesh);
        const waves1 = await fleet(client, mesh, 1);
        const waves3 = await fleet(client, mesh, 3);
        const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
        process.stdout.write(
          `round ${round}: four single runbooks one after another ${s(one)}; fleet, wave size 1: ${s(waves1)} (${(waves1 / one).toFixed(2)}×); fleet, canary then a wave of 3: ${s(waves3)} (${(waves3 / one).toFixed(2)}×)\n`,
        );
      }
    });
  } finally {
    await env.teardown();
    for (const node of nodes()) {
      const release = await acquireLock(mesh.layout.nodeLock(node), { timeoutMs: 60_000 }).catch(
        () => undefined,
      );
      await rm(mesh.layout.inboxDir(node), { recursive: true, force: true });
      await release?.();
    }
    await removeNodeContainers(nodes());
    await rm(stateDir, { recursive: true, force: true });
  }
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench-fleet: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
