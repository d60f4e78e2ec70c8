import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { readHistory } from '../../cli/runbook/history/events';
import { buildHistory } from '../../cli/runbook/history/record';
import { renderHistory } from '../../cli/runbook/history/render';
import type { RunbookStatus } from '../../workflows/contracts';

// eslint-disable-next-line no-control-regex
const plain = (lines: string[]) => lines.map((line) => line.replace(/\u001b\[\d+m/g, ''));
const payload = (value: unknown) => defaultPayloadConverter.toPayload(value);
const T0 = Date.parse('2026-09-26T12:00:00.000Z');

type Event = temporal.api.history.v1.IHistoryEvent;
let nextId = 1;
/** One history event `seconds` after T0, as the server would hand it out. */
/** Built by hand: plain numbers where the server sends Longs, which the reader accepts either way. */
function at(seconds: number, event: object): Event {
  const ms = T0 + seconds * 1000;
  return {
    eventId: nextId++,
    eventTime: { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 },
    ...event,
  } as unknown as Event;
}

const waitingOn = (gate: string | null) => ({
  upsertWorkflowSearchAttributesEventAttributes: {
    searchAttributes: { indexedFields: { MeshWaitingOn: payload(gate) } },
  },
});

const bobsApproval = {
  action: 'approve',
  by: 'bob',
  gate: 'approve-stop-predecessor',
  evidence: '3f9a1c2b7d',
  comment: 'names verified',
  at: '2026-09-26T12:00:40.000Z',
};

/** An edge flip that ran preflight (two activities), waited for approval, refused alice, took bob's, then failed. */
function events(): Event[] {
  nextId = 1;
  return [
    at(0, {
      workflowExecutionStartedEventAttributes: {
        workflowType: { name: 'edgeFlip' },
        input: { payloads: [payload({ node: 'novox', module: 'route-proxy', startedBy: 'alice' })] },
      },
    }),
    at(1, {
      activityTaskScheduledEventAttributes: { activityType: { name: 'probePublicNames' } },
      userMetadata: { summary: payload('preflight: probe public names on novox') },
    }),
    at(2, { activityTaskCompletedEventAttributes: { scheduledEventId: 2 } }),
    at(3, {
      activityTaskScheduledEventAttributes: { activityType: { name: 'inspectModuleContainers' } },
      userMetadata: { summary: payload('preflight: inspect module containers on novox') },
    }),
    at(4, { activityTaskStartedEventAttributes: { scheduledEventId: 4, attempt: 2 } }),
    at(5, { activityTaskCompletedEventAttributes: { scheduledEventId: 4 } }),
    at(10, waitingOn('approve-stop-predecessor')),
    at(20, {
      workflowExecutionUpdateAcceptedEventAttributes: {
        acceptedRequest: {
          meta: { updateId: 'u1', identity: 'alice@host (mesh cli)' },
          input: {
            name: 'decide',
            args: { payloads: [payload({ action: 'approve', by: 'alice', evidence: '3f9a1c2b7d' })] },
          },
        },
      },
    }),
    at(20, {
      workflowExecutionUpdateCompletedEventAttributes: {
        meta: { updateId: 'u1' },
        outcome: { failure: { message: 'alice started this runbook and may not also approve (four eyes).' } },
      },
    }),
    at(40, {
      workflowExecutionUpdateAcceptedEventAttributes: {
        acceptedRequest: {
          meta: { updateId: 'u2' },
          input: { name: 'decide', args: { payloads: [payload({ action: 'approve', by: 'bob' })] } },
        },
      },
    }),
    at(40, {
      workflowExecutionUpdateCompletedEventAttributes: {
        meta: { updateId: 'u2' },
        outcome: { success: { payloads: [payload(bobsApproval)] } },
      },
    }),
    at(41, waitingOn(null)),
    at(42, {
      activityTaskScheduledEventAttributes: { activityType: { name: 'stopModule' } },
      userMetadata: { summary: payload('stop-predecessor: stop module on novox') },
    }),
    at(45, {
      activityTaskFailedEventAttributes: {
        scheduledEventId: 13,
        failure: { message: 'Activity task failed', cause: { message: 'docker said no' } },
      },
    }),
    at(50, {
      workflowExecutionFailedEventAttributes: {
        failure: {
          message: 'stopping caddy failed; rolled back',
          applicationFailureInfo: { type: 'RolledBack' },
        },
      },
    }),
  ];
}

describe('runbook history from the event history', () => {
  it('reads input, activities by step, waits, accepted and refused decisions and the close', () => {
    const facts = readHistory(events());
    assert.equal(facts.workflowType, 'edgeFlip');
    assert.deepEqual(facts.input, { node: 'novox', module: 'route-proxy', startedBy: 'alice' });
    assert.deepEqual(
      facts.activities.map((a) => [a.step, a.activity, a.outcome, a.attempt ?? 1]),
      [
        ['preflight', 'probePublicNames', 'completed', 1],
        ['preflight', 'inspectModuleContainers', 'completed', 2],
        ['stop-predecessor', 'stopModule', 'failed', 1],
      ],
    );
    assert.equal(facts.activities[2]?.failure, 'Activity task failed: docker said no');
    assert.deepEqual(facts.waits, [
      { gate: 'approve-stop-predecessor', from: '2026-09-26T12:00:10.000Z', to: '2026-09-26T12:00:41.000Z' },
    ]);
    assert.deepEqual(facts.decisions, [bobsApproval]);
    assert.deepEqual(facts.refused, [
      {
        action: 'approve',
        by: 'alice',
        evidence: '3f9a1c2b7d',
        gate: 'approve-stop-predecessor',
        at: '2026-09-26T12:00:20.000Z',
        refusal: 'alice started this runbook and may not also approve (four eyes).',
      },
    ]);
    assert.equal(facts.closed?.phase, 'rolled-back');
    assert.equal(facts.closed?.outcome, 'stopping caddy failed; rolled back');
  });

  it('without a status, derives each step from its activities: times, state, failures', () => {
    const history = buildHistory(
      'runbook-novox',
      'edge-flip',
      readHistory(events()),
      undefined,
      'status query',
    );
    assert.equal(history.notesFrom, 'none');
    assert.deepEqual(
      history.steps.map((step) => [
        step.name,
        step.state,
        step.startedAt,
        step.endedAt,
        step.activities.length,
      ]),
      [
        ['preflight', 'done', '2026-09-26T12:00:01.000Z', '2026-09-26T12:00:05.000Z', 2],
        ['stop-predecessor', 'failed', '2026-09-26T12:00:42.000Z', '2026-09-26T12:00:45.000Z', 1],
      ],
    );
    const lines = plain(renderHistory(history));
    assert.equal(
      lines[0],
      'runbook-novox  edge-flip on novox (module route-proxy), started by alice at 2026-09-26T12:00:00Z: rolled-back',
    );
    assert.match(lines[2] ?? '', /^ {2}✔ preflight +done +12:00:01 → 12:00:05 4\.0s +\[2 activities\]$/);
    assert.match(
      lines[4] ?? '',
      /^ {6}✘ stopModule failed at 12:00:45: Activity task failed: docker said no$/,
    );
    assert.ok(lines.includes('  approve-stop-predecessor  12:00:10 → 12:00:41 31s'));
    assert.ok(
      lines.includes(
        '  approve at approve-stop-predecessor by bob, 2026-09-26T12:00:40Z, evidence 3f9a1c2b7d "names verified"',
      ),
    );
    assert.ok(
      lines.some((line) => /^ {2}approve at .* by alice, .*: refused, alice started this runbook/.test(line)),
    );
    assert.equal(lines.at(-1), 'rolled-back at 2026-09-26T12:00:50Z: stopping caddy failed; rolled back');
  });

  it('with a status, keeps its checklist (states, notes, steps without activities) and adds the activities', () => {
    const status: RunbookStatus = {
      id: 'runbook-novox',
      kind: 'edge-flip',
      node: 'novox',
      module: 'route-proxy',
      startedBy: 'alice',
      phase: 'rolled-back',
      waiting: null,
      steps: [
        {
          name: 'preflight',
          state: 'done',
          startedAt: '2026-09-26T12:00:00.500Z',
          endedAt: '2026-09-26T12:00:05.500Z',
          note: 'caddy serves 3 name(s)',
        },
        { name: 'approve-stop-predecessor', state: 'done', startedAt: '2026-09-26T12:00:10.000Z' },
        { name: 'stop-predecessor', state: 'compensated' },
      ],
      decisions: [],
      refused: [],
    };
    const withPolicy = events();
    // The policy the runbook reads before its first step: an activity of no step but `start`.
    const policy = at(0.5, {
      activityTaskScheduledEventAttributes: { activityType: { name: 'runbookPolicy' } },
      userMetadata: { summary: payload('start: runbook policy on ?') },
    });
    withPolicy.splice(1, 0, policy);
    withPolicy.splice(
      2,
      0,
      at(0.6, { activityTaskCompletedEventAttributes: { scheduledEventId: policy.eventId } }),
    );
    const history = buildHistory(
      'runbook-novox',
      'edge-flip',
      readHistory(withPolicy),
      status,
      'status query',
    );
    assert.equal(history.notesFrom, 'status query');
    assert.deepEqual(
      history.steps.map((step) => [step.name, step.state, step.note, step.activities.length]),
      [
        ['start', 'done', undefined, 1],
        ['preflight', 'done', 'caddy serves 3 name(s)', 2],
        ['approve-stop-predecessor', 'done', undefined, 0],
        ['stop-predecessor', 'compensated', undefined, 1],
      ],
    );
    assert.deepEqual(history.decisions, [bobsApproval], 'decisions come from the history, not the status');
  });
});
