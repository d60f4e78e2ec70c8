import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { BenchResult } from '../../scripts/bench/result';
import { assertFleetCompleted } from '../support/bench-fleet-checks';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');

/** `npm run bench -- --lab` end to end on the lab (it takes the lab through Lab.story), so it cannot rot. */
describe('npm run bench -- --lab', () => {
  it(
    "flips novox through the lab's executor and by the shell script in its namespace, and meters what it cost",
    { timeout: 600_000 },
    async () => {
      const { stdout } = await run(
        'npm',
        [
          'run',
          '--silent',
          'bench',
          '--',
          '--lab',
          '--quick',
          '--rounds',
          '1',
          '--only',
          'lab-executor,lab-shell',
          '--json',
        ],
        { cwd: ROOT, maxBuffer: 16 << 20 },
      );
      const result = JSON.parse(stdout) as BenchResult;
      assert.deepEqual(result.options.contenders, ['lab-executor', 'lab-shell']);
      const [executor, shell] = result.contenders;
      assert.equal(
        executor?.ok,
        1,
        `the lab executor's flip did not complete: ${executor?.failures.join('; ')}`,
      );
      assert.equal(shell?.ok, 1, `the lab shell flip failed: ${shell?.failures.join('; ')}`);

      const flip = result.runs.find((r) => r.contender === 'lab-executor')?.executor;
      assert.equal(flip?.node, 'novox');
      assert.equal(flip.phase, 'completed');
      assert.ok(flip.history.events > 0 && flip.history.bytes > 0);
      assert.ok(flip.detection.healthyMs !== undefined, "no health_status event from novox's own engine");
      const resources = flip.resources;
      assert.ok(resources, 'the lab run was not metered');
      assert.deepEqual(Object.keys(resources.workers).sort(), ['node worker novox', 'runbook worker']);
      for (const [worker, used] of Object.entries(resources.workers))
        assert.ok(used && used.ownMs + used.childrenMs > 0, `no CPU time for the ${worker}`);
      assert.ok((resources.temporalCpuMs ?? 0) > 0, "no CPU time for Temporal's services");
      assert.ok((resources.postgresCpuMs ?? 0) > 0, 'no CPU time for PostgreSQL');
      const written = resources.postgres;
      assert.ok(written, 'no PostgreSQL figures');
      assert.ok(written.walBytes > 0 && written.commits > 0);
      assert.ok((written.databases.temporal?.inserted ?? 0) > 0, 'no rows written to temporal');
      assert.ok(
        (written.databases.temporal_visibility?.inserted ?? 0) > 0,
        'no rows written to temporal_visibility',
      );
      assert.ok(written.windowMs >= (result.lab?.pgSettleMs ?? Number.POSITIVE_INFINITY));
      assert.ok(result.idle && result.idle.seconds > 0);
    },
  );
  it(
    "runs a fleet of four simulated nodes on the dev server and on the lab's Temporal, two approvals on each",
    { timeout: 600_000 },
    async () => {
      const { stdout } = await run(
        'npm',
        ['run', '--silent', 'bench', '--', '--fleet', '4', '--lab', '--json'],
        {
          cwd: ROOT,
          maxBuffer: 16 << 20,
        },
      );
      const result = JSON.parse(stdout) as BenchResult;
      assert.deepEqual(result.contenders, [], '--fleet --lab runs no edge-flip rounds');
      const runs = result.fleet?.runs ?? [];
      assert.deepEqual(
        runs.map((r) => r.server),
        ['dev server', 'lab'],
      );
      const [dev, lab] = runs;
      assertFleetCompleted(dev, 4);
      assertFleetCompleted(lab, 4);
      assert.equal(dev.database?.measured, 'SQLite file');
      assert.ok((dev.temporalCpuMs ?? 0) > 0, "no CPU time for the dev server's process");
      assert.ok((lab.temporalCpuMs ?? 0) > 0, "no CPU time for the lab's Temporal services");
      assert.ok((lab.postgresCpuMs ?? 0) > 0, 'no CPU time for PostgreSQL');
      const written = lab.database?.postgres;
      assert.equal(lab.database?.measured, 'PostgreSQL');
      assert.ok(written && written.walBytes > 0 && written.commits > 0, 'no PostgreSQL figures');
      assert.ok((written.databases.temporal?.inserted ?? 0) > 0, 'no rows written to temporal');
      // Each side's ratio is over its own smallest fleet: the one size is 1 on both.
      assert.deepEqual(result.fleet?.cpuPerNodeVsSmallest, [1, 1]);
    },
  );
});
