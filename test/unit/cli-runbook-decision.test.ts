import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gateDecidedOn } from '../../cli/runbook/decide/decision';
import type { Waiting } from '../../workflows/contracts';

const held: Waiting = {
  gate: 'gate-apply',
  verdict: 'held',
  reason: 'route-proxy is held.',
  actions: ['take', 'retry', 'abort'],
  facts: ['held 6'],
  evidence: '0a1b2c3d4e',
  since: '2026-09-26T12:00:00.000Z',
  reminders: 0,
};

describe('a decision without --evidence', () => {
  it('is taken on the gate the runbook waits at, when the action and gate fit it', () => {
    assert.equal(gateDecidedOn(held, { action: 'take', by: 'bob' }), held);
    assert.equal(gateDecidedOn(held, { action: 'take', by: 'bob', gate: 'gate-apply' }), held);
  });

  it('carries no evidence when it fits no gate, so the runbook refuses it with its own sentence', () => {
    assert.equal(gateDecidedOn(null, { action: 'take', by: 'bob' }), undefined);
    assert.equal(gateDecidedOn(held, { action: 'approve', by: 'bob' }), undefined);
    assert.equal(gateDecidedOn(held, { action: 'take', by: 'bob', gate: 'preflight' }), undefined);
  });
});
