import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunbookStatus } from '../../workflows/contracts';
import { REPORTS_AT_ONCE, tellsNow, type Told } from '../../workflows/runbook/parent-report';

type Seen = Pick<RunbookStatus, 'phase' | 'waiting' | 'decisions'>;

const MINUTE = 60_000;
const asked = (evidence: string): Seen => ({
  phase: 'waiting',
  waiting: {
    gate: 'approve-stop-predecessor',
    verdict: 'approval',
    reason: 'approve?',
    actions: ['approve', 'abort'],
    facts: [],
    evidence,
    since: '',
    reminders: 0,
  },
  decisions: [],
});
const rechecking: Seen = { phase: 'running', waiting: null, decisions: [] };

/** Plays `statuses` at their times through tellsNow, as parentReporter does; the reports told. */
function told(statuses: { atMs: number; status: Seen }[]): { atMs: number; status: Seen }[] {
  const reports: { atMs: number; status: Seen }[] = [];
  let last: Told | undefined;
  for (const seen of statuses) {
    if (!tellsNow(seen.status, last, seen.atMs)) continue;
    reports.push(seen);
    last = {
      count: (last?.count ?? 0) + 1,
      waiting: seen.status.waiting !== null,
      decisions: seen.status.decisions.length,
      atMs: seen.atMs,
    };
  }
  return reports;
}

/** An approval asked anew every `everyMs` for `days`: each re-ask leaves the wait, rechecks, waits again. */
function churn(days: number, everyMs: number) {
  const statuses = [{ atMs: 0, status: asked('0') }];
  for (let at = everyMs; at < days * 24 * 60 * MINUTE; at += everyMs)
    statuses.push({ atMs: at, status: rechecking }, { atMs: at + 2_000, status: asked(String(at)) });
  return statuses;
}

describe("a fleet's node tells its fleet a bounded number of times (tellsNow)", () => {
  it('an approval asked anew every 30 minutes for 30 days: a few dozen reports, not 2,880', () => {
    const statuses = churn(30, 30 * MINUTE);
    const reports = told(statuses);
    console.log(`30 days of re-asks every 30 min: ${statuses.length} changes, ${reports.length} reports`);
    assert.ok(reports.length <= REPORTS_AT_ONCE + 2 * 17, `${reports.length} reports`);
  });

  it('never leaves the fleet believing a waiting node runs: a wait after a running report goes at once', () => {
    const reports = told(churn(3, 5 * MINUTE));
    const lastSaid = reports.at(-1)?.status;
    assert.notEqual(lastSaid?.waiting, null, 'the last report says it waits');
    for (const [i, report] of reports.entries()) {
      const next = reports[i + 1];
      if (report.status.waiting !== null || next === undefined) continue;
      assert.notEqual(next.status.waiting, null, 'a running report is followed by the wait after it');
      assert.equal(next.atMs - report.atMs, 2_000, 'told as soon as it waits');
    }
  });

  it('past the budget, a decision and an end are told at once', () => {
    const statuses = churn(1, MINUTE);
    const last = statuses.at(-1)?.atMs ?? 0;
    const decided: Seen = {
      phase: 'running',
      waiting: null,
      decisions: [{ gate: 'approve-stop-predecessor', action: 'approve', by: 'bob', at: '' }],
    };
    const ended: Seen = { ...decided, phase: 'completed' };
    const reports = told([
      ...statuses,
      { atMs: last + 1_000, status: decided },
      { atMs: last + 2_000, status: ended },
    ]);
    assert.deepEqual(
      reports.slice(-2).map((r) => r.status),
      [decided, ended],
    );
  });
});
