import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  inFlightSentence,
  leftSentence,
  leftSuggestion,
  type LeftMark,
} from '../../activities/runbook/node-marks';
import { endedCleanly, type NodeMarkInput } from '../../workflows/node-mark-contracts';

const mark = (workflowId: string): NodeMarkInput => ({
  node: 'edge2',
  by: {
    workflowId,
    runId: 'r1',
    type: 'dataPathMove',
    what: 'data-path-move of forge on edge1, edge2',
    startedBy: 'alice',
    at: '2026-12-01T10:00:00.000Z',
  },
});

const left = (ended: LeftMark['ended'], historyGone = false, id = 'runbook-edge2'): LeftMark => ({
  kind: 'left',
  node: 'edge2',
  mark: mark(id),
  historyGone,
  ...(ended ? { ended } : {}),
});

const CLEAR = 'look at edge2, then clear it: mesh runbook clear edge2 --reason "<what you found and did>".';

describe('a node mark: when its runbook ended cleanly, and what the operator reads when it did not', () => {
  it('ended cleanly: completed, cancelled (aborted, undo done), or failed with a runbook failure other than RollbackFailed', () => {
    const cases: [string, string | undefined, boolean][] = [
      ['COMPLETED', undefined, true],
      ['CANCELLED', undefined, true],
      ['FAILED', 'RolledBack', true],
      ['FAILED', 'Aborted', true],
      ['FAILED', 'PreflightFailed', true],
      ['FAILED', 'RollbackFailed', false],
      ['FAILED', undefined, false],
      ['TERMINATED', undefined, false],
      ['TIMED_OUT', undefined, false],
      ['UNKNOWN', undefined, false],
    ];
    for (const [status, failureType, clean] of cases)
      assert.equal(
        endedCleanly({ status, ...(failureType ? { failureType } : {}) }),
        clean,
        `${status} ${failureType}`,
      );
  });

  it('says how the run left the node, names another node’s run by its id, and says when its history is gone', () => {
    assert.equal(
      leftSentence(
        left({ status: 'FAILED', failureType: 'RollbackFailed', outcome: 'aborted;\n  undo failed' }),
      ),
      `The last runbook on edge2 (dataPathMove, run r1) ended with its rollback failed (aborted; undo failed); ${CLEAR}`,
    );
    assert.equal(
      leftSentence(left({ status: 'TERMINATED', outcome: 'a Web UI button' }, false, 'runbook-edge1')),
      `The last runbook on edge2 (dataPathMove runbook-edge1, run r1) was terminated while it changed edge2 (a Web UI button); ${CLEAR}`,
    );
    assert.equal(
      leftSentence(left({ status: 'TIMED_OUT' })),
      `The last runbook on edge2 (dataPathMove, run r1) timed out while it changed edge2; ${CLEAR}`,
    );
    assert.equal(
      leftSentence(left(undefined, true)),
      `The last runbook on edge2 (dataPathMove, run r1) changed edge2 and did not end cleanly; its history is gone now (past the namespace retention); ${CLEAR}`,
    );
    assert.equal(
      leftSuggestion(left(undefined, true)),
      'Its history is gone; look at edge2 itself before you clear it.',
    );
    assert.equal(
      leftSuggestion(left({ status: 'TERMINATED' }, false, 'runbook-edge1')),
      'See what it did and left with `mesh runbook history runbook-edge1`.',
    );
    assert.equal(
      inFlightSentence({ kind: 'in-flight', node: 'edge2', mark: mark('runbook-edge1') }),
      'edge2 is being changed by runbook-edge1 (data-path-move of forge on edge1, edge2, run r1), which still runs; wait for it to end: mesh runbook watch runbook-edge1.',
    );
  });

  it('names the run a Temporal Reset carried the marking run on to, and the run it was reset from', () => {
    assert.equal(
      inFlightSentence({ kind: 'in-flight', node: 'edge2', mark: mark('runbook-edge1'), resetTo: 'r2' }),
      'edge2 is being changed by runbook-edge1 (data-path-move of forge on edge1, edge2, run r2, reset from run r1), which still runs; wait for it to end: mesh runbook watch runbook-edge1.',
    );
    assert.equal(
      leftSentence({ ...left({ status: 'TIMED_OUT' }), resetTo: 'r2' }),
      `The last runbook on edge2 (dataPathMove, run r2, reset from run r1) timed out while it changed edge2; ${CLEAR}`,
    );
  });
});
