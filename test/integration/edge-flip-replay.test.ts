import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON, type History } from '@temporalio/common/lib/proto-utils';
import { DefaultLogger, Runtime, Worker, type ReplayWorkerOptions } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { workflowsFromSource } from '../../worker/workflow-code';
import {
  FAILURE,
  runbookWorkflowId,
  type EdgeFlipInput,
  type RunbookStatus,
} from '../../workflows/contracts';
import { fleetWorkflowId, type EdgeFlipFleetInputArg } from '../../workflows/fleet/contracts';
import { revisionOf } from '../support/history-revision';
import { replayList } from '../support/replay-list';

/**
 * Histories recorded by scripts/record-histories.ts (real runs on a dev server), replayed against the
 * workflow code of this checkout: a change that would break runbooks in flight fails here, not in
 * production. Re-record only with a change guarded by `patched()`.
 */

const HISTORIES = join(__dirname, '..', 'histories');

/** A committed history, read with the SDK's own proto3 JSON reader. */
function readHistory(file: string): History {
  return historyFromJSON(JSON.parse(readFileSync(join(HISTORIES, file), 'utf8')));
}

/** The id the runbook ran under (it is in its status), from the input in the history's first event. */
function workflowIdOf(history: History): string {
  const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  assert.ok(payload, 'the history starts with the workflow input');
  return runbookWorkflowId(defaultPayloadConverter.fromPayload<EdgeFlipInput>(payload).node);
}

function activityTypes(history: History): string[] {
  return (history.events ?? []).flatMap((event) => {
    const name = event.activityTaskScheduledEventAttributes?.activityType?.name;
    return name ? [name] : [];
  });
}

function acceptedUpdates(history: History): number {
  return (history.events ?? []).filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes)
    .length;
}

/** The workflow code under test: the harness's bundle of workflows/, else bundled here. */
function current(): ReplayWorkerOptions {
  const bundle = process.env.MESH_WORKFLOW_BUNDLE;
  return bundle ? { workflowBundle: { codePath: bundle } } : workflowsFromSource();
}

describe('the runbooks replay their committed histories', () => {
  before(() => {
    // Core logs the deliberate nondeterminism below as a warning; keep errors only.
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
    });
  });

  const RECORDINGS = [
    // Revision 3 (a run in flight across the upgrade to revision 4), then revision 4's own.
    { file: 'edge-flip-happy.revision-3.json', takes: false, updates: 1 },
    { file: 'edge-flip-happy.json', takes: false, updates: 1 },
    { file: 'edge-flip-incident-take.json', takes: true, updates: 3 },
  ];

  for (const { file, takes, updates } of RECORDINGS) {
    it(`${file} (${takes ? 'held → take → approve' : 'approve'}, revision ${revisionOf(readHistory(file))}) replays against the current workflow code`, async () => {
      const history = readHistory(file);
      const activities = activityTypes(history);
      assert.ok(activities.includes('stopModuleContainers'), 'the recording reaches the stop');
      assert.equal(activities.includes('takeModule'), takes);
      assert.equal(acceptedUpdates(history), updates);
      await Worker.runReplayHistory(current(), history, workflowIdOf(history));
    });
  }

  for (const file of ['data-path-move-recreate.json'])
    it(`${file} (unrecreated-volume → recreate through mesh → remove, revision ${revisionOf(readHistory(file))}) replays against the current workflow code`, async () => {
      const history = readHistory(file);
      const activities = activityTypes(history);
      for (const step of [
        'copyTree',
        'verifyTree',
        'recordBaseline',
        'catchUpCopy',
        'removeStaleContainers',
        'removeTree',
      ])
        assert.ok(activities.includes(step), `the recording reaches ${step}`);
      assert.equal(acceptedUpdates(history), 2);
      await Worker.runReplayHistory(current(), history, workflowIdOf(history));
    });

  for (const file of ['edge-flip-fleet.json'])
    it(`${file} (a fleet of two: canary approved, held node taken and approved, each on itself) replays`, async () => {
      const history = readHistory(file);
      const events = history.events ?? [];
      const children = events.flatMap((e) => {
        const id = e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
        return id ? [id] : [];
      });
      assert.deepEqual(children, [
        runbookWorkflowId('hist-fleet-canary'),
        runbookWorkflowId('hist-fleet-held'),
      ]);
      const reports = events.filter(
        (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'childReport',
      );
      assert.ok(reports.length >= 4, `the nodes reported their waits: ${reports.length}`);
      assert.equal(acceptedUpdates(history), 0, 'every decision was taken on the nodes themselves');
      await Worker.runReplayHistory(current(), history, fleetWorkflowId('route-proxy'));
    });

  it('edge-flip-fleet-waves.json (canary-then-waves: the canary on itself, the waves once at the fleet, the held node on itself) replays', async () => {
    const history = readHistory('edge-flip-fleet-waves.json');
    const started = (history.events ?? []).flatMap((e) => {
      const attributes = e.startChildWorkflowExecutionInitiatedEventAttributes;
      return attributes ? [attributes] : [];
    });
    assert.deepEqual(
      started.map((a) => a.workflowId),
      ['hist-waves-canary', 'hist-waves-clean', 'hist-waves-held'].map(runbookWorkflowId),
    );
    const approvals = started.map((a) => {
      const payload = a.input?.payloads?.[0];
      return payload && defaultPayloadConverter.fromPayload<EdgeFlipInput>(payload).fleetApproval;
    });
    assert.equal(approvals[0], undefined, 'the canary asks its own');
    for (const approval of approvals.slice(1))
      assert.deepEqual(
        [approval?.runbook, approval?.gate, approval?.by],
        [fleetWorkflowId('route-proxy'), 'approve-waves', 'reviewer'],
      );
    assert.equal(acceptedUpdates(history), 1, 'the waves were approved once, at the fleet');
    await Worker.runReplayHistory(current(), history, fleetWorkflowId('route-proxy'));
  });

  it('edge-flip-fleet-continued.first-run.json and .json (a fleet past its history bound continues as new; the last run goes on) replay', async () => {
    const childrenOf = (history: History) =>
      (history.events ?? []).flatMap((e) => {
        const id = e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
        return id ? [id] : [];
      });
    const first = readHistory('edge-flip-fleet-continued.first-run.json');
    assert.ok(first.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes, 'it continued as new');
    assert.deepEqual(childrenOf(first), ['hist-bound-canary', 'hist-bound-b'].map(runbookWorkflowId));
    const last = readHistory('edge-flip-fleet-continued.json');
    const payload = last.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    const carried = payload && defaultPayloadConverter.fromPayload<EdgeFlipFleetInputArg>(payload).carried;
    assert.deepEqual(
      carried?.ended.map((end) => `${end.node} ${end.phase}`),
      ['hist-bound-canary completed', 'hist-bound-b completed'],
    );
    assert.equal(carried?.approval?.gate, 'approve-waves');
    assert.deepEqual(childrenOf(last), [runbookWorkflowId('hist-bound-c')]);
    for (const history of [first, last])
      await Worker.runReplayHistory(current(), history, fleetWorkflowId('route-proxy'));
  });

  for (const recorded of ['.before-undo-passes-hung-work', '.revision-3', ''])
    it(`data-path-move-fleet${recorded}.json and its later node's (canary-then-waves: that node removes A on the fleet's approval) replay`, async () => {
      const fleet = readHistory(`data-path-move-fleet${recorded}.json`);
      const child = readHistory(`data-path-move-fleet-child${recorded}.json`);
      assert.equal(acceptedUpdates(child), 0, 'nobody decided on the later node itself');
      for (const activity of ['copyTree', 'catchUpCopy', 'removeStaleContainers', 'removeTree'])
        assert.ok(activityTypes(child).includes(activity), activity);
      assert.equal(acceptedUpdates(fleet), 1, 'the waves approved once at the fleet');
      assert.ok(activityTypes(fleet).includes('setUpgradePolicy'), 'the fleet froze and restored the policy');
      await Worker.runReplayHistory(current(), fleet, fleetWorkflowId('store'));
      await Worker.runReplayHistory(current(), child, runbookWorkflowId('hist-move-b'));
    });

  it("edge-flip-fleet-child-waves.json (a clean node stops its predecessor on the fleet's approval) replays", async () => {
    const history = readHistory('edge-flip-fleet-child-waves.json');
    assert.ok(activityTypes(history).includes('stopModuleContainers'));
    assert.equal(acceptedUpdates(history), 0, 'nobody decided on the node itself');
    await Worker.runReplayHistory(current(), history, workflowIdOf(history));
  });

  for (const file of ['edge-flip-fleet-child-held.json'])
    it(`${file} (a fleet's node: held → take → approve, reporting to its fleet) replays`, async () => {
      const history = readHistory(file);
      const events = history.events ?? [];
      assert.ok(activityTypes(history).includes('takeModule'));
      assert.ok(activityTypes(history).includes('stopModuleContainers'));
      const signalled = events.filter(
        (e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName === 'childReport',
      );
      assert.ok(signalled.length >= 4, `the node told its fleet of its waits: ${signalled.length}`);
      assert.equal(
        events[0]?.workflowExecutionStartedEventAttributes?.parentWorkflowExecution?.workflowId,
        fleetWorkflowId('route-proxy'),
      );
      await Worker.runReplayHistory(current(), history, workflowIdOf(history));
    });

  it('runbooks schedule every step with a 10 s heartbeat timeout', () => {
    for (const file of [
      'edge-flip-happy.revision-3.json',
      'edge-flip-happy.json',
      'data-path-move-recreate.json',
    ]) {
      const timeouts = (readHistory(file).events ?? []).flatMap((event) => {
        const scheduled = event.activityTaskScheduledEventAttributes;
        return scheduled
          ? [`${scheduled.activityType?.name}: ${Number(scheduled.heartbeatTimeout?.seconds ?? 0)} s`]
          : [];
      });
      assert.ok(timeouts.length > 15, file);
      // A waiting gate's or approval's watch (Docker events on the node's worker) is no step: it beats every 30 s.
      const watches = ['watchModuleContainers: 30 s', 'watchPathUsers: 30 s'];
      assert.deepEqual(
        timeouts.filter((t) => !t.endsWith(': 10 s') && !watches.includes(t)),
        [],
        `${file}: a worker killed inside any of these is noticed after 10 s`,
      );
    }
  });

  it('edge-flip-aborted.json (aborted at the approval, the successor taken off) replays; its failure carries the final status', async () => {
    const history = readHistory('edge-flip-aborted.json');
    const failed = history.events?.at(-1)?.workflowExecutionFailedEventAttributes?.failure;
    assert.equal(failed?.applicationFailureInfo?.type, FAILURE.aborted);
    const detail = failed?.applicationFailureInfo?.details?.payloads?.[0];
    const status = detail ? defaultPayloadConverter.fromPayload<RunbookStatus>(detail) : undefined;
    assert.equal(status?.phase, 'aborted');
    assert.ok(
      status?.steps.some((step) => step.name === 'unassign-successor'),
      'the undo is in it',
    );
    await Worker.runReplayHistory(current(), history, workflowIdOf(history));
  });

  for (const [file, watches] of [
    // The approval and recheck-successor watched: the successor started by hand, it said ok now and waited
    // for the recheck.
    ['edge-flip-approval-changed.json', 3],
  ] as const)
    it(`${file} (the successor killed while the approval waited: the watch ended the ask, recheck, approved anew) replays`, async () => {
      const history = readHistory(file);
      const events = history.events ?? [];
      const activities = activityTypes(history);
      const watched = activities.filter((a) => a === 'watchModuleContainers').length;
      assert.ok(watched >= watches, `watched ${watched} times`);
      assert.ok(
        events.some((e) => e.activityTaskCancelRequestedEventAttributes),
        'the watch of the decided ask was cancelled',
      );
      assert.ok(activities.includes('stopModuleContainers'), 'the recording reaches the stop');
      assert.equal(acceptedUpdates(history), 2, 'recheck, then the approval asked anew');
      await Worker.runReplayHistory(current(), history, workflowIdOf(history));
    });

  for (const file of ['data-path-move-old-data-user.revision-3.json', 'data-path-move-old-data-user.json'])
    it(`${file} (a user of A came and went while the approval to remove A waited: asked anew each time, then removed) replays`, async () => {
      const history = readHistory(file);
      const activities = activityTypes(history);
      const watched = activities.filter((a) => a === 'watchPathUsers').length;
      assert.ok(watched >= 3, `watched ${watched} times: at the first ask and at each ask anew`);
      assert.equal(acceptedUpdates(history), 2, 'recreate, then remove on the last ask');
      assert.ok(activities.includes('removeTree'), 'the recording reaches the removal');
      await Worker.runReplayHistory(current(), history, workflowIdOf(history));
    });

  it('edge-flip-refused.json (refused at preflight: the runbook ended there, waiting for nobody) replays', async () => {
    const history = readHistory('edge-flip-refused.json');
    const failed = history.events?.at(-1)?.workflowExecutionFailedEventAttributes?.failure;
    assert.equal(failed?.applicationFailureInfo?.type, FAILURE.preflightFailed);
    assert.equal(acceptedUpdates(history), 0, 'nobody was asked');
    const status = defaultPayloadConverter.fromPayload<RunbookStatus>(
      failed?.applicationFailureInfo?.details?.payloads?.[0] ?? assert.fail('no final status'),
    );
    assert.match(status.outcome ?? '', /^refused at preflight: predecessor caddy has no running container/);
    assert.ok(!activityTypes(history).includes('assignModule'), 'nothing changed');
    await Worker.runReplayHistory(current(), history, workflowIdOf(history));
  });

  it('runbooks recorded since parallel-reads send reads that do not wait on each other in one workflow task', () => {
    /** In how many workflow tasks `names` were scheduled, found in this order from the start (or the end). */
    const together = (file: string, names: string[], from: 'start' | 'end' = 'start') => {
      const events = readHistory(file).events ?? [];
      const wanted = from === 'start' ? names : [...names].reverse();
      const tasks = new Set<string>();
      const seen: string[] = [];
      for (const event of from === 'start' ? events : [...events].reverse()) {
        const scheduled = event.activityTaskScheduledEventAttributes;
        const name = scheduled?.activityType?.name;
        if (!name || seen.length === wanted.length || name !== wanted[seen.length]) continue;
        seen.push(name);
        tasks.add(String(scheduled.workflowTaskCompletedEventId));
      }
      assert.deepEqual(seen, wanted, `${file} schedules ${names.join(', ')}`);
      return tasks.size;
    };
    const start = ['previousRun', 'runbookPolicy'];
    const preflight = ['runningModuleContainers', 'runningModuleContainers', 'probePublicNames'];
    const gateClean = ['observeModuleContainers', 'runningModuleContainers'];
    for (const file of [
      'edge-flip-happy.revision-3.json',
      'edge-flip-happy.json',
      'edge-flip-incident-take.json',
      'edge-flip-fleet-child-held.json',
    ]) {
      assert.equal(together(file, start), 1, `${file}: the policy and the last run in one task`);
      assert.equal(together(file, preflight), 1, `${file}: the three preflight looks in one task`);
      assert.equal(together(file, gateClean, 'end'), 1, `${file}: gate-clean's two looks in one task`);
    }
    assert.equal(together('data-path-move-recreate.json', start), 1);
  });

  it('every kind and fleet form in the registry has a committed recording', () => {
    const unrecorded = replayList().filter((entry) => entry.recordings.length === 0);
    assert.deepEqual(unrecorded, [], 'record one with scripts/record-histories.ts');
  });

  it('a workflow with one step added before preflight fails replay with a DeterminismViolationError', async () => {
    const history = readHistory('edge-flip-happy.json');
    const broken = workflowsFromSource(require.resolve('../fixtures/broken-workflows'));
    await assert.rejects(Worker.runReplayHistory(broken, history, workflowIdOf(history)), (error) => {
      assert.ok(error instanceof DeterminismViolationError, `not a DeterminismViolationError: ${error}`);
      // The added push comes where the recorded run sent its first command after its deprecated patch
      // markers (which core lets pass): its search attributes' upsert.
      assert.match(
        error.message,
        /Nondeterminism error: Activity machine does not handle this event: HistoryEvent\(id: \d+, UpsertWorkflowSearchAttributes\)/,
      );
      return true;
    });
  });
});
