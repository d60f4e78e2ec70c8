import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { decideUpdate, statusQuery, workStalledSignal } from '../../workflows/contracts';
import { childReportSignal } from '../../workflows/fleet/contracts';

describe('the runbook query, update, fleet signal and stall signal, defined without the workflow SDK', () => {
  it('are what its defineQuery, defineUpdate and defineSignal make of the same names', () => {
    assert.deepEqual(statusQuery, defineQuery('status'));
    assert.deepEqual(decideUpdate, defineUpdate('decide'));
    assert.deepEqual(childReportSignal, defineSignal('childReport'));
    assert.deepEqual(workStalledSignal, defineSignal('work-stalled'));
  });
});
