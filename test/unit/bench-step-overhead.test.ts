import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stepTimings, unionMs } from '../../scripts/bench/step-overhead';
import type { Step } from '../../workflows/contracts';

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
const base = Date.UTC(2026, 0, 1);
const span = (from: number, to: number) => ({ from: base + from, to: base + to });
const activity = (step: string, from: number, to: number) => ({
  type: 'someActivity',
  step,
  scheduledAt: base + from,
  ...span(from, to),
});

describe('bench: per-step overhead', () => {
  it('counts overlapping spans once', () => {
    assert.equal(unionMs([span(0, 100), span(50, 150), span(300, 310)]), 160);
    assert.equal(unionMs([span(0, 100), span(10, 20)]), 100);
    assert.equal(unionMs([]), 0);
  });

  it("subtracts the step's own activities of its last run, and shows the timers inside it", () => {
    const steps: Step[] = [
      { name: 'gate-apply', state: 'done', startedAt: at(1_000), endedAt: at(4_000) },
      { name: 'verify-successor', state: 'done', startedAt: at(4_010), endedAt: at(4_500) },
    ];
    const activities = [
      activity('gate-apply', 0, 900), // an earlier run of the same gate (before it waited): not this run
      activity('gate-apply', 1_010, 2_000),
      activity('gate-apply', 1_500, 2_500), // runs alongside the one before: counted once
      activity('gate-apply', 3_000, 3_990),
      activity('verify-successor', 4_020, 4_400),
    ];
    const timers = [span(2_500, 2_990)];
    assert.deepEqual(stepTimings(steps, activities, timers), [
      { step: 'gate-apply', wallMs: 3_000, activityMs: 2_480, timerMs: 490, overheadMs: 520 },
      { step: 'verify-successor', wallMs: 490, activityMs: 380, timerMs: 0, overheadMs: 110 },
    ]);
  });

  it('leaves out approvals (they only wait) and skipped steps', () => {
    const steps: Step[] = [
      { name: 'approve-stop-predecessor', state: 'done', endedAt: at(9_000) },
      { name: 'take', state: 'skipped', endedAt: at(100) },
      { name: 'push', state: 'done', startedAt: at(0), endedAt: at(50) },
    ];
    assert.deepEqual(
      stepTimings(steps, [], []).map((t) => t.step),
      ['push'],
    );
  });
});
