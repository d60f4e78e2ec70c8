import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { wrongProceeds, type SeenWait } from '../../scripts/chaos/drive';
import type { RunbookStatus } from '../../workflows/contracts';

const SINCE = '2026-12-04T10:00:00.000Z';
const LATER = '2026-12-04T10:00:05.000Z';

function flip(started: Record<string, string>, decisions: RunbookStatus['decisions'] = []): RunbookStatus {
  const names = ['probe-successor', 'approve-stop-predecessor', 'recheck-successor', 'stop-predecessor'];
  return {
    id: 'runbook-novox',
    kind: 'edge-flip',
    node: 'novox',
    module: 'route-proxy',
    startedBy: 'alice',
    phase: 'waiting',
    waiting: null,
    steps: names.map((name) => ({
      name,
      state: started[name] ? 'done' : 'pending',
      ...(started[name] ? { startedAt: started[name] } : {}),
    })),
    decisions,
    refused: [],
  };
}

const approval: SeenWait = {
  gate: 'approve-stop-predecessor',
  verdict: 'approval',
  since: SINCE,
  reason: '',
};

describe('chaos: what counts as a wrong proceed', () => {
  it('an approval that ended undecided (its evidence changed) may hand over to the gate that looks again', () => {
    assert.deepEqual(wrongProceeds(flip({ 'recheck-successor': LATER }), [approval]), []);
  });

  it('a step that acts after an approval nobody gave is one', () => {
    assert.deepEqual(
      wrongProceeds(flip({ 'recheck-successor': LATER, 'stop-predecessor': LATER }), [approval]),
      ['stop-predecessor ran after approve-stop-predecessor waited (approval) with no decision'],
    );
  });

  it('a gate that waited on failed evidence and went on with no decision is one, gate or not', () => {
    const failed: SeenWait = { gate: 'probe-successor', verdict: 'failed', since: SINCE, reason: '' };
    assert.deepEqual(wrongProceeds(flip({ 'recheck-successor': LATER }), [failed]), [
      'recheck-successor ran after probe-successor waited (failed) with no decision',
    ]);
  });
});
