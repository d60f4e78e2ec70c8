import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { BenchResult } from '../../scripts/bench/result';
import { assertFleetCompleted } from '../support/bench-fleet-checks';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');

describe('npm run bench', () => {
  it(
    'runs the quick executor round end to end and prints its figures as JSON',
    { timeout: 600_000 },
    async () => {
      const { stdout } = await run(
        'npm',
        ['run', '--silent', 'bench', '--', '--quick', '--rounds', '1', '--only', 'executor', '--json'],
        { cwd: ROOT, maxBuffer: 16 << 20 },
      );
      const result = JSON.parse(stdout) as BenchResult;

      assert.deepEqual(result.options.contenders, ['executor']);
      assert.equal(result.options.rounds, 1);
      const [executor] = result.contenders;
      assert.equal(executor?.contender, 'executor');
      assert.equal(executor.ok, 1, `the executor's flip did not complete: ${executor.failures.join('; ')}`);
      assert.ok((executor.wallMs?.median ?? 0) > 0);
      assert.equal(executor.servedAfterStopMs?.n, 1, 'no wait for the public port after the stop');

      const [flip] = result.runs;
      assert.equal(flip?.executor?.phase, 'completed');
      assert.deepEqual(
        flip.executor.waits.map((w) => [w.gate, w.action]),
        [['approve-stop-predecessor', 'approve']],
      );
      const e = executor.executor;
      assert.ok(e, 'no executor figures');
      const steps = e.byStep.map((s) => s.step);
      for (const step of [
        'preflight',
        'push',
        'gate-apply',
        'verify-successor',
        'stop-predecessor',
        'gate-clean',
      ])
        assert.ok(steps.includes(step), `no timing for ${step} in ${steps.join(', ')}`);
      assert.ok((e.stepOverheadMs?.n ?? 0) >= steps.length);
      assert.equal(e.detection.healthyMs?.n, 1, 'no detection latency for the healthy successor');
      assert.equal(e.detection.heldMs, undefined, 'nothing is held without leftovers');
      assert.ok((e.historyEvents?.median ?? 0) > 0 && (e.historyBytes?.median ?? 0) > 0);
      assert.ok(e.activities.some((a) => a.type === 'observeModuleContainers'));
      const cost = flip.executor.resources;
      assert.ok((cost?.workers.worker?.ownMs ?? 0) > 0, "no CPU time for the bench's worker");
      assert.ok((cost?.temporalCpuMs ?? 0) > 0, "no CPU time for the dev server's process");
      assert.equal(cost?.postgres, undefined, 'the dev server has no PostgreSQL');
      assert.ok(result.worker.peakRssMb > 0 && result.worker.idleRssMb > 0);
      assert.equal(result.cli, undefined, '--only executor leaves the CLI out');
      assert.deepEqual(result.scale, []);
    },
  );

  it(
    'runs a fleet of four simulated nodes (canary, then a wave) and the operator approves exactly twice',
    { timeout: 600_000 },
    async () => {
      const { stdout } = await run('npm', ['run', '--silent', 'bench', '--', '--fleet', '4', '--json'], {
        cwd: ROOT,
        maxBuffer: 16 << 20,
      });
      const result = JSON.parse(stdout) as BenchResult;

      assert.deepEqual(result.options.fleet, [4]);
      assert.deepEqual(result.contenders, [], '--fleet alone runs no edge-flip rounds');
      const curve = result.fleet;
      assert.ok(curve, 'no fleet figures');
      const [fleet] = curve.runs;
      assertFleetCompleted(fleet, 4);
      assert.equal(fleet.server, 'dev server');
      assert.equal(curve.runs.length, 1, 'no lab without --lab');
      assert.ok(
        fleet.database && fleet.database.afterBytes > fleet.database.beforeBytes,
        'no database growth',
      );
      assert.equal(fleet.database.measured, 'SQLite file');
      assert.deepEqual(curve.cpuPerNodeVsSmallest, [1]);
    },
  );
});
