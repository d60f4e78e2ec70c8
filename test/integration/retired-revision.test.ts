import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client, Connection } from '@temporalio/client';
import { openRuns, retiredRuns } from '../../client/revision-runs';
import { TemporalReads } from '../../client/temporal-reads/reads';
import { OLDEST_SUPPORTED_REVISION, RUNBOOK_REVISION } from '../../workflows/runbook/revision';
import { fixtureWorker } from '../support/fixture-worker';
import { connectHarnessClient, harnessTarget } from '../support/temporal';
import { MeshWorker } from '../support/tls-cli';

/**
 * Versions leave with their last run (issue 28): a worker whose code no longer replays a revision refuses to
 * start while a run of it is open on its queue, naming the run, and `list --revision` shows the open runs per
 * revision. The old releases' runs are stand-ins (test/fixtures/revision-workflows: a revision-1 edge flip,
 * a revision-2 data-path move, a revision-3 edge-flip fleet) run by a fixture worker on the harness's real
 * dev server; the refusing worker is the real `mesh runbook worker`.
 */

const WAIT_MS = 180_000;

describe('a worker refuses to start while a run of a retired revision is open', () => {
  const queue = `retired-revision-${randomUUID().slice(0, 8)}`;
  const target = harnessTarget();
  let client: Client;
  let connection: Connection;
  let reads: TemporalReads;
  let stateDir: string;
  const env = () => ({
    TEMPORAL_ADDRESS: target.address,
    TEMPORAL_NAMESPACE: target.namespace,
    MESH_TASK_QUEUE: queue,
    MESH_ADAPTER: 'local',
    MESH_LOCAL_STATE: stateDir,
    MESH_LOG_LEVEL: 'warn',
  });

  before(async () => {
    ({ client, connection } = await connectHarnessClient());
    reads = new TemporalReads({ address: target.address }, target.namespace);
    stateDir = await mkdtemp(join(tmpdir(), 'retired-revision-'));
  });
  after(async () => {
    reads.close();
    await connection.close();
    await rm(stateDir, { recursive: true, force: true });
  });

  /** Waits until the visibility store says what `seen` looks for. */
  async function until<T>(what: string, look: () => Promise<T | undefined>): Promise<T> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const found = await look();
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`${what} not seen within ${WAIT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  }

  it('names the revision-1 and revision-2 runs, lets a revision-3 run be, and starts once the old runs are gone', async () => {
    const fixture = await fixtureWorker(require.resolve('../fixtures/revision-workflows'), queue);
    const old = await client.workflow.start('edgeFlip', { taskQueue: queue, workflowId: `${queue}-old` });
    const second = await client.workflow.start('dataPathMove', {
      taskQueue: queue,
      workflowId: `${queue}-second`,
    });
    const kept = await client.workflow.start('edgeFlipFleet', {
      taskQueue: queue,
      workflowId: `${queue}-kept`,
    });
    try {
      const runs = await until('the three runs with their revisions', async () => {
        const open = await openRuns(reads, queue);
        const revisions = open.map((o) => [o.run.workflowId, o.revision]).sort();
        return open.length === 3 && !revisions.some(([, r]) => r === undefined) ? revisions : undefined;
      });
      assert.deepEqual(runs, [
        [kept.workflowId, 3],
        [old.workflowId, 1],
        [second.workflowId, 2],
      ]);
      await fixture.stop();

      const refused = MeshWorker.start(env());
      assert.equal(await refused.exit(), 2, refused.output);
      const said = refused.output.trim();
      assert.match(
        said,
        new RegExp(
          `revision ${RUNBOOK_REVISION}, which no longer replays runs older than revision ${OLDEST_SUPPORTED_REVISION}`,
        ),
      );
      assert.match(said, /2 such runs are open/);
      assert.match(said, new RegExp(`${old.workflowId} \\(revision 1, run ${old.firstExecutionRunId}\\)`));
      assert.match(
        said,
        new RegExp(`${second.workflowId} \\(revision 2, run ${second.firstExecutionRunId}\\)`),
      );
      assert.doesNotMatch(said, new RegExp(kept.workflowId), 'a revision-3 run is replayed, not refused');
      assert.doesNotMatch(said, /polls task queue/, 'it never polled');

      const listed = await until('list --revision', async () => {
        const out = await runList(env());
        return out.code === 0 ? out : undefined;
      });
      const rows = JSON.parse(listed.stdout) as {
        revision: number;
        open: number;
        thisCode: string;
        runs: string[];
      }[];
      assert.deepEqual(
        rows.map((r) => [r.revision, r.open, r.thisCode]),
        [
          [3, 1, 'replays'],
          [2, 1, 'retired'],
          [1, 1, 'retired'],
        ],
      );
      assert.deepEqual(rows[1]?.runs, [`${second.workflowId} (dataPathMove)`]);
      assert.deepEqual(rows[2]?.runs, [`${old.workflowId} (edgeFlip)`]);

      await old.terminate('ended by the operator before the upgrade');
      await second.terminate('ended by the operator before the upgrade');
      await until('no retired run', async () =>
        (await retiredRuns(reads, queue)).length === 0 ? true : undefined,
      );
      const started = MeshWorker.start(env());
      try {
        assert.equal((await started.ready()).taskQueue, queue);
      } finally {
        await started.stop();
      }
    } finally {
      await fixture.stop().catch(() => undefined);
      for (const handle of [old, second, kept]) await handle.terminate('test ends').catch(() => undefined);
    }
  });

  it('a run no worker ran yet has no revision: it is not refused, it runs on whichever code takes it', async () => {
    const idle = `${queue}-idle`;
    const waiting = await client.workflow.start('edgeFlip', { taskQueue: idle, workflowId: `${idle}-new` });
    try {
      const open = await until('the unstarted run', async () => {
        const runs = await openRuns(reads, idle);
        return runs.length === 1 ? runs : undefined;
      });
      assert.equal(open[0]?.revision, undefined);
      assert.deepEqual(await retiredRuns(reads, idle), []);
    } finally {
      await waiting.terminate('test ends');
    }
  });
});

async function runList(env: Record<string, string>): Promise<{ code: number; stdout: string }> {
  const { execFile } = await import('node:child_process');
  const { MESH } = await import('../support/mesh-cli');
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [MESH, 'runbook', 'list', '--revision', '--json'],
      { env: { ...process.env, ...env } },
      (error, stdout) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout }),
    ),
  );
}
