import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXIT } from '../../cli/errors';
import { exitForAbort, exitForPhase, isTerminal, phaseOfClosed } from '../../cli/runbook/exit-codes';
import { FAILURE, PHASES } from '../../workflows/contracts';

describe('runbook exit codes', () => {
  it('maps every phase: 0 running or completed, 3 waiting, 4 rolled back, 5 failed or aborted', () => {
    const codes = Object.fromEntries(PHASES.map((phase) => [phase, exitForPhase(phase)]));
    assert.deepEqual(codes, {
      running: 0,
      waiting: 3,
      completed: 0,
      'rolled-back': 4,
      aborted: 5,
      failed: 5,
    });
    assert.equal(exitForPhase('waiting'), EXIT.waiting);
  });

  it('counts an abort as done when the runbook ended aborted, not when its rollback failed or it completed', () => {
    assert.equal(exitForAbort('aborted'), 0);
    assert.equal(exitForAbort('failed'), 5);
    assert.equal(exitForAbort('rolled-back'), 4);
    assert.equal(exitForAbort('completed'), 1);
  });

  it('knows which phases end a runbook', () => {
    assert.deepEqual(
      PHASES.filter((phase) => isTerminal(phase)),
      ['completed', 'rolled-back', 'aborted', 'failed'],
    );
  });

  it("derives a closed run's phase from its close status and the runbook's failure type", () => {
    assert.equal(phaseOfClosed('COMPLETED', undefined), 'completed');
    assert.equal(phaseOfClosed('CANCELLED', undefined), 'aborted');
    assert.equal(phaseOfClosed('FAILED', FAILURE.rolledBack), 'rolled-back');
    assert.equal(phaseOfClosed('FAILED', FAILURE.aborted), 'aborted');
    assert.equal(phaseOfClosed('FAILED', FAILURE.rollbackFailed), 'failed');
    assert.equal(phaseOfClosed('FAILED', FAILURE.preflightFailed), 'failed');
    assert.equal(phaseOfClosed('FAILED', undefined), 'failed');
    assert.equal(phaseOfClosed('TERMINATED', undefined), 'failed');
    assert.equal(phaseOfClosed('TIMED_OUT', undefined), 'failed');
  });
});
