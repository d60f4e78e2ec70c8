import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON, type History } from '@temporalio/common/lib/proto-utils';
import { DefaultLogger, Runtime, Worker, type ReplayWorkerOptions } from '@temporalio/worker';
import { workflowsFromSource } from '../../worker/workflow-code';
import type { RunRef } from '../../workflows/lock-hold';
import type { NodeMarkInput } from '../../workflows/node-mark-contracts';

/**
 * The long-lived workflows beside the runbooks, replayed against this checkout's workflow code: the lock
 * keeper (started with a flip's request, a move waiting, a release from outside ignored), a node's
 * in-flight mark (unmarked by its run's clean end; left by a terminated run, continued as new, then
 * cleared; unmarked by the clean end of the run a Temporal Reset carried its run on to) and the clearance
 * that cleared it. Recorded by scripts/record-histories.ts as real runbooks drive them; re-record only with
 * a change behind `patched()`.
 */

const HISTORIES = join(__dirname, '..', 'histories');

function readHistory(file: string): History {
  return historyFromJSON(JSON.parse(readFileSync(join(HISTORIES, file), 'utf8')));
}

/** The workflow id is not in a history; any id replays, these say what each was. */
const RECORDINGS = [
  { file: 'lock-keeper.json', id: 'runbook-locks@record', type: 'runbookLocks' },
  { file: 'node-mark-unmarked.json', id: 'runbook-mark-record', type: 'nodeMark' },
  { file: 'node-mark-left.json', id: 'runbook-mark-record', type: 'nodeMark' },
  { file: 'node-mark-cleared.json', id: 'runbook-mark-record', type: 'nodeMark' },
  { file: 'node-mark-reset-unmarked.json', id: 'runbook-mark-record', type: 'nodeMark' },
  { file: 'clear-node.json', id: 'runbook-record', type: 'clearNode' },
];

function activities(history: History): string[] {
  return (history.events ?? []).flatMap(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? [],
  );
}

function current(): ReplayWorkerOptions {
  const bundle = process.env.MESH_WORKFLOW_BUNDLE;
  return bundle ? { workflowBundle: { codePath: bundle } } : workflowsFromSource();
}

describe('the lock keeper, the node marks and the clearance replay their committed histories', () => {
  before(() => {
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
    });
  });

  it('the recordings are what they say: the keeper asks the runs first and of every release; a reset run tells a mark', () => {
    const asks = activities(readHistory('lock-keeper.json'));
    assert.equal(asks[0], 'lockHoldsOn', 'started afresh, it asks the runbooks before anything else');
    assert.ok(asks.slice(1).every((name) => name === 'lockHoldOf') && asks.length > 2, asks.join());
    const left = readHistory('node-mark-left.json').events ?? [];
    assert.ok(
      left.at(-1)?.workflowExecutionContinuedAsNewEventAttributes,
      'the left mark keeps how its run ended',
    );
    const reset = readHistory('node-mark-reset-unmarked.json').events ?? [];
    const input = reset[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    const told = reset.find((e) => e.workflowExecutionSignaledEventAttributes)
      ?.workflowExecutionSignaledEventAttributes?.input?.payloads?.[0];
    assert.ok(input && told);
    const { by } = defaultPayloadConverter.fromPayload<NodeMarkInput>(input);
    const teller = defaultPayloadConverter.fromPayload<RunRef>(told);
    assert.deepEqual([teller.workflowId === by.workflowId, teller.runId === by.runId], [true, false]);
    assert.ok(
      reset.some((e) => e.markerRecordedEventAttributes),
      'the patch marker',
    );
  });

  for (const { file, id, type } of RECORDINGS)
    it(`${file} (${type}) replays against the current workflow code`, async () => {
      const history = readHistory(file);
      const started = history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;
      assert.equal(started, type);
      await Worker.runReplayHistory(current(), history, id);
    });
});
