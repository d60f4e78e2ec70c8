import assert from 'node:assert/strict';
import type { FleetRun } from '../../scripts/bench/fleet';

/**
 * What every fleet of `size` simulated nodes run by the bench must show, on either server: completed, the
 * operator's two approvals (the canary's, then the waves'), one history per node, a parent in one run, the
 * worker metered, watch stopped at the first wait, status answered. The database is the caller's to check.
 */
export function assertFleetCompleted(fleet: FleetRun | undefined, size: number): asserts fleet is FleetRun {
  const where = `the fleet on the ${fleet?.server ?? '?'}`;
  assert.equal(fleet?.phase, 'completed', `${where} did not complete: ${fleet?.failure ?? fleet?.outcome}`);
  assert.equal(fleet.nodes, size);
  assert.equal(fleet.approvals, 2, `${where}: ${JSON.stringify(fleet.decisions)}`);
  const decisions = fleet.decisions.map((d) => [d.runbook, d.gate, d.action]);
  assert.equal(decisions.length, 2, `${where}: ${JSON.stringify(decisions)}`);
  // The names carry the bench run's tag, so that no earlier run's fleet on a long-lived server is met again.
  assert.match(decisions[0]?.[0] ?? '', new RegExp(`^runbook-sim-[0-9a-f]{4}-${size}-0$`));
  assert.deepEqual(decisions[0]?.slice(1), ['approve-stop-predecessor', 'approve']);
  assert.match(decisions[1]?.[0] ?? '', new RegExp(`^runbook-fleet-simulated-edge-[0-9a-f]{4}-${size}$`));
  assert.deepEqual(decisions[1]?.slice(1), ['approve-waves', 'approve']);
  assert.ok(fleet.wallMs > 0);
  const { parent, perNode } = fleet.histories;
  assert.equal(parent.runs, 1);
  assert.ok(parent.events > 0 && parent.bytes > 0 && parent.workflowTasks > 0);
  assert.deepEqual(
    [parent.maxRunEvents, parent.maxRunBytes],
    [parent.events, parent.bytes],
    'one run is the largest',
  );
  assert.equal(perNode.events?.n, size, 'one history per node');
  assert.ok((perNode.workflowTasks?.median ?? 0) > 0);
  assert.ok((fleet.worker.cpuMs ?? 0) > 0 && fleet.worker.peakRssMb > 0);
  assert.equal(fleet.terminatedLeftovers, 0, `${where} left workflows running`);
  assert.equal(fleet.watch.exitCode, 3, "watch stops at the fleet's first wait with exit 3");
  assert.ok(fleet.watch.shownAfterMs !== undefined, 'watch printed no wait');
  assert.deepEqual(
    fleet.statusCli.exitCodes.length > 0 && fleet.statusCli.exitCodes.every((c) => c === 0),
    true,
  );
}
