import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { clearNode, dataPathMove, edgeFlip, nodeMark } from '../../workflows';
import { CLEARANCE_TYPE } from '../../client/clearance-names';
import { decideUpdate, statusQuery, workStalledSignal } from '../../workflows/contracts';
import { childReportSignal } from '../../workflows/fleet/contracts';
import { LOCKING_WORKFLOW_TYPES, lockHoldQuery } from '../../workflows/lock-hold';
import {
  clearMarkSignal,
  markQuery,
  NODE_MARK_TYPE,
  runbookEndedSignal,
} from '../../workflows/node-mark-contracts';

describe('the runbook query, update and signals, defined without the workflow SDK', () => {
  it('are what its defineQuery, defineUpdate and defineSignal make of the same names', () => {
    assert.deepEqual(statusQuery, defineQuery('status'));
    assert.deepEqual(decideUpdate, defineUpdate('decide'));
    assert.deepEqual(childReportSignal, defineSignal('childReport'));
    assert.deepEqual(workStalledSignal, defineSignal('work-stalled'));
    assert.deepEqual(lockHoldQuery, defineQuery('lockHold'));
    assert.deepEqual(runbookEndedSignal, defineSignal('runbookEnded'));
    assert.deepEqual(clearMarkSignal, defineSignal('clearMark'));
    assert.deepEqual(markQuery, defineQuery('mark'));
  });

  it('name the workflow types the lock keeper and the readers of marks and clearances look for', () => {
    assert.deepEqual([...LOCKING_WORKFLOW_TYPES], [edgeFlip.name, dataPathMove.name]);
    assert.equal(NODE_MARK_TYPE, nodeMark.name);
    assert.equal(CLEARANCE_TYPE, clearNode.name);
  });
});
