import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { CLEARANCE_TYPE } from '../../workflows/clearance-names';
import { decideUpdate, statusQuery, workStalledSignal } from '../../workflows/contracts';
import { childReportSignal } from '../../workflows/fleet/contracts';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as workflows from '../../workflows';
import { clearNode, nodeMark } from '../../workflows';
import { lockingWorkflowTypes } from '../../workflows/kinds';
import { lockHoldQuery } from '../../workflows/lock-hold';
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

  it('name the workflow types the readers of marks and clearances look for', () => {
    assert.equal(NODE_MARK_TYPE, nodeMark.name);
    assert.equal(CLEARANCE_TYPE, clearNode.name);
  });
});

/** The workflows the worker registers whose own file takes locks (openRunbook, or takeLocks directly). */
function workflowsTakingLocks(): string[] {
  const dir = join(__dirname, '..', '..', 'workflows');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.ts'))
    .map((file) => readFileSync(join(dir, file), 'utf8'))
    .filter((source) => /\b(openRunbook|takeLocks)\(/.test(source))
    .flatMap((source) => [...source.matchAll(/^export async function (\w+)\(/gm)].map((m) => m[1] ?? ''))
    .filter((name) => name in workflows);
}

describe("the lock keeper's workflow types, read from the kinds' registry", () => {
  it('are workflows the worker registers', () => {
    const registered: Record<string, unknown> = workflows;
    for (const type of lockingWorkflowTypes())
      assert.equal(typeof registered[type], 'function', `${type} is exported by workflows/index.ts`);
  });

  it('hold every workflow that takes locks, fleets too: a keeper started afresh asks each of them', () => {
    const taking = workflowsTakingLocks();
    assert.ok(taking.length >= 3, `found the workflows that take locks: ${taking.join(', ')}`);
    assert.deepEqual(
      taking.filter((type) => !lockingWorkflowTypes().includes(type)),
      [],
      'a workflow that takes locks is missing from the lock keeper’s types',
    );
  });
});
