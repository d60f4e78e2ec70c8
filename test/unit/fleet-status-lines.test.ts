import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FLEET_LINES } from '../../cli/runbook/fleet-lines';
import { renderStatus } from '../../cli/runbook/render';
import type { RunbookStatus, StepState } from '../../workflows/contracts';

function fleetOf(states: StepState[]): RunbookStatus {
  return {
    id: 'runbook-fleet-route-proxy',
    kind: 'edge-flip',
    node: 'fleet',
    module: 'route-proxy',
    startedBy: 'alice',
    phase: 'running',
    waiting: null,
    steps: states.map((state, i) => ({ name: `edge${i}`, state })),
    decisions: [],
    refused: [],
  };
}

const NOW = new Date('2026-12-04T14:00:00Z');

describe('status of a big fleet', () => {
  it('counts its nodes per state and lists those waiting, failed, rolled back or running first', () => {
    const states: StepState[] = Array.from({ length: 1_000 }, (_, i) =>
      i < 950 ? 'done' : i < 990 ? 'pending' : i === 990 ? 'failed' : i === 991 ? 'waiting' : 'running',
    );
    const lines = renderStatus(fleetOf(states), NOW);
    assert.ok(lines.length <= FLEET_LINES + 3, `${lines.length} lines`);
    assert.equal(lines[1], '  1000 steps: 40 pending, 8 running, 1 waiting, 950 done, 1 failed');
    assert.match(lines[2] ?? '', /edge991 +waiting/);
    assert.match(lines[3] ?? '', /edge990 +failed/);
    assert.match(lines[4] ?? '', /edge992 +running/);
    assert.match(
      lines.at(-1) ?? '',
      /… 990 more not listed \(`mesh runbook status runbook-fleet-route-proxy --json` has every node\)/,
    );
  });

  it('lists every node of a fleet small enough, in order, and every step of a runbook', () => {
    const small = renderStatus(fleetOf(Array.from({ length: FLEET_LINES }, () => 'done')), NOW);
    assert.equal(small.length, FLEET_LINES + 1);
    assert.match(small[1] ?? '', /edge0 +done/);
  });
});
