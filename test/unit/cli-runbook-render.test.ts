import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunbookStatus, Step } from '../../workflows/contracts';
import {
  busySentence,
  changedSteps,
  currentStep,
  renderStatus,
  stepElapsed,
  whereItIs,
} from '../../cli/runbook/render';
import { actionCommand, decidingOnBlock, waitingBlock } from '../../cli/runbook/render-gate';
import { formatDuration } from '../../workflows/runbook/step-marks';

// eslint-disable-next-line no-control-regex
const plain = (lines: string[]) => lines.map((line) => line.replace(/\u001b\[\d+m/g, ''));
const NOW = new Date('2026-09-26T12:10:00.000Z');

function waitingAtApproval(): RunbookStatus {
  return {
    id: 'runbook-novox',
    kind: 'edge-flip',
    node: 'novox',
    module: 'route-proxy',
    startedBy: 'alice',
    phase: 'waiting',
    waiting: {
      gate: 'approve-stop-predecessor',
      verdict: 'approval',
      reason: 'route-proxy is verified on novox; approve stops caddy, abort unassigns route-proxy.',
      actions: ['approve', 'abort'],
      facts: ['probe-successor: 3/3 names answered 200'],
      evidence: '3f9a1c2b7d',
      since: '2026-09-26T12:07:00.000Z',
      reminders: 0,
    },
    steps: [
      {
        name: 'preflight',
        state: 'done',
        startedAt: '2026-09-26T12:00:00.000Z',
        endedAt: '2026-09-26T12:00:01.500Z',
        note: 'caddy serves 2 name(s)',
      },
      { name: 'take', state: 'skipped', endedAt: '2026-09-26T12:01:00.000Z' },
      { name: 'approve-stop-predecessor', state: 'waiting', startedAt: '2026-09-26T12:07:00.000Z' },
      { name: 'stop-predecessor', state: 'pending' },
    ],
    decisions: [],
    refused: [],
  };
}

describe('runbook status rendering', () => {
  it('formats durations for a terminal: tenths under 10 s, then seconds, minutes, hours', () => {
    assert.equal(formatDuration(1_500), '1.5s');
    assert.equal(formatDuration(42_000), '42s');
    assert.equal(formatDuration(185_000), '3m05s');
    assert.equal(formatDuration(3_725_000), '1h02m');
    assert.equal(formatDuration(-5), '0.0s');
  });

  it('times a step from its start to its end, or to now while it runs; not at all once the runbook ended', () => {
    const [done, , waiting, pending] = waitingAtApproval().steps as [Step, Step, Step, Step];
    assert.equal(stepElapsed(done, NOW), '1.5s');
    assert.equal(stepElapsed(waiting, NOW), '3m00s');
    assert.equal(stepElapsed(pending, NOW), undefined);
    assert.equal(stepElapsed(waiting, NOW, false), undefined);
  });

  it('prints the checklist, then the waiting block: sentence, facts, evidence hash, reminders, a command per action', () => {
    const lines = plain(renderStatus(waitingAtApproval(), NOW));
    assert.equal(
      lines[0],
      'runbook-novox  edge-flip on novox (module route-proxy), started by alice: waiting at approve-stop-predecessor',
    );
    assert.match(lines[1] ?? '', /^ {2}✔ preflight +done +1\.5s {2}caddy serves 2 name\(s\)$/);
    assert.match(lines[3] ?? '', /‖ approve-stop-predecessor {2}waiting +3m00s$/);
    assert.deepEqual(lines.slice(5), [
      '‖ waiting at approve-stop-predecessor (approval) for 3m00s, since 2026-09-26T12:07:00Z',
      '  route-proxy is verified on novox; approve stops caddy, abort unassigns route-proxy.',
      '  evidence 3f9a1c2b7d:',
      '    - probe-successor: 3/3 names answered 200',
      '  reminders: none sent yet',
      '  what you can do:',
      '    approve  mesh runbook decide runbook-novox approve --evidence 3f9a1c2b7d',
      '    abort    mesh runbook decide runbook-novox abort --evidence 3f9a1c2b7d',
    ]);
  });

  it('counts the reminders sent and says where the last one went', () => {
    const waiting = { ...waitingAtApproval().waiting!, reminders: 2, lastReminder: 'webhook 204' };
    const lines = plain(waitingBlock('runbook-novox', waiting, NOW));
    assert.ok(lines.includes('  reminders: 2 sent, last: webhook 204'), lines.join('\n'));
  });

  it('lists decisions with approver, time, evidence and comment, and refused attempts with their refusal', () => {
    const status: RunbookStatus = {
      ...waitingAtApproval(),
      decisions: [
        {
          gate: 'gate-apply',
          action: 'take',
          by: 'bob',
          at: '2026-09-26T12:03:00.456Z',
          evidence: '0a1b2c3d4e',
          comment: 'our leftovers',
        },
      ],
      refused: [
        {
          gate: 'approve-stop-predecessor',
          action: 'approve',
          by: 'alice',
          at: '2026-09-26T12:08:00.123Z',
          evidence: '3f9a1c2b7d',
          refusal:
            'alice started this runbook and may not also approve approve-stop-predecessor (four eyes); ask another operator.',
        },
      ],
    };
    const lines = plain(renderStatus(status, NOW));
    const at = lines.indexOf('decisions:');
    assert.deepEqual(lines.slice(at, at + 4), [
      'decisions:',
      '  take at gate-apply by bob, 2026-09-26T12:03:00Z, evidence 0a1b2c3d4e "our leftovers"',
      'refused attempts:',
      '  approve at approve-stop-predecessor by alice, 2026-09-26T12:08:00Z, evidence 3f9a1c2b7d: refused, alice started this runbook and may not also approve approve-stop-predecessor (four eyes); ask another operator.',
    ]);
  });

  it('says where each decider’s name came from: the OS user, --as or the Web UI; nothing for older decisions', () => {
    const at = '2026-09-26T12:03:00.456Z';
    const status: RunbookStatus = {
      ...waitingAtApproval(),
      decisions: [
        { gate: 'gate-apply', action: 'take', by: 'bob', identity: 'os-user', at, evidence: '0a1b2c3d4e' },
        { gate: 'gate-apply', action: 'retry', by: 'carol', identity: 'as-flag', at, evidence: '0a1b2c3d4e' },
        { gate: 'gate-apply', action: 'recheck', by: 'dave', identity: 'web-ui', at, evidence: '0a1b2c3d4e' },
        { gate: 'gate-apply', action: 'retry', by: 'erin', at, evidence: '0a1b2c3d4e' },
      ],
      refused: [
        {
          gate: 'approve-stop-predecessor',
          action: 'approve',
          by: 'alice',
          identity: 'as-flag',
          at,
          evidence: '3f9a1c2b7d',
          refusal: 'four eyes',
        },
      ],
    };
    const lines = plain(renderStatus(status, NOW));
    const from = lines.indexOf('decisions:');
    assert.deepEqual(lines.slice(from, from + 7), [
      'decisions:',
      '  take at gate-apply by bob (OS user), 2026-09-26T12:03:00Z, evidence 0a1b2c3d4e',
      '  retry at gate-apply by carol (--as), 2026-09-26T12:03:00Z, evidence 0a1b2c3d4e',
      '  recheck at gate-apply by dave (typed in the Web UI), 2026-09-26T12:03:00Z, evidence 0a1b2c3d4e',
      '  retry at gate-apply by erin, 2026-09-26T12:03:00Z, evidence 0a1b2c3d4e',
      'refused attempts:',
      '  approve at approve-stop-predecessor by alice (--as), 2026-09-26T12:03:00Z, evidence 3f9a1c2b7d: refused, four eyes',
    ]);
  });

  it('shows what a decision without --evidence is taken on: action, who, gate, sentence, facts, hash', () => {
    const lines = plain(decidingOnBlock('approve', 'bob', waitingAtApproval().waiting!));
    assert.deepEqual(lines, [
      'deciding approve as bob at approve-stop-predecessor (approval) on evidence 3f9a1c2b7d:',
      '  route-proxy is verified on novox; approve stops caddy, abort unassigns route-proxy.',
      '  evidence 3f9a1c2b7d:',
      '    - probe-successor: 3/3 names answered 200',
    ]);
  });

  it('shows decisions and the outcome of an ended runbook', () => {
    const ended: RunbookStatus = {
      ...waitingAtApproval(),
      phase: 'rolled-back',
      waiting: null,
      decisions: [
        {
          gate: 'approve-stop-predecessor',
          action: 'approve',
          by: 'bob',
          at: '2026-09-26T12:08:00.123Z',
          comment: 'ok',
        },
      ],
      outcome: 'after stopping caddy, 1 of 2 names failed; rolled back',
    };
    const lines = plain(renderStatus(ended, NOW));
    assert.match(lines[0] ?? '', /started by alice: rolled-back$/);
    assert.ok(
      lines.includes(
        '  approve at approve-stop-predecessor by bob, 2026-09-26T12:08:00Z, evidence none "ok"',
      ),
    );
    assert.equal(lines.at(-1), 'rolled-back: after stopping caddy, 1 of 2 names failed; rolled back');
    assert.ok(!lines.some((line) => line.includes('what you can do')));
  });

  it('gives the exact command per action: a decision on the evidence hash, abort included', () => {
    assert.equal(
      actionCommand('runbook-novox', 'take', '0a1b2c3d4e'),
      'mesh runbook decide runbook-novox take --evidence 0a1b2c3d4e',
    );
    assert.equal(
      actionCommand('runbook-novox', 'abort', '0a1b2c3d4e'),
      'mesh runbook decide runbook-novox abort --evidence 0a1b2c3d4e',
    );
    const block = plain(
      waitingBlock(
        'runbook-novox',
        {
          gate: 'gate-apply',
          verdict: 'held',
          reason: 'route-proxy is held.',
          actions: ['take', 'retry', 'abort'],
          facts: [],
          evidence: '0a1b2c3d4e',
          reminders: 0,
          since: NOW.toISOString(),
        },
        NOW,
      ),
    );
    assert.deepEqual(block.slice(2), [
      '  evidence 0a1b2c3d4e:',
      '    (no facts recorded)',
      '  reminders: none sent yet',
      '  what you can do:',
      '    take   mesh runbook decide runbook-novox take --evidence 0a1b2c3d4e',
      '    retry  mesh runbook decide runbook-novox retry --evidence 0a1b2c3d4e',
      '    abort  mesh runbook decide runbook-novox abort --evidence 0a1b2c3d4e',
    ]);
  });

  it('knows where a runbook is: the gate it waits at, the step that runs, or its phase', () => {
    const waiting = waitingAtApproval();
    assert.equal(currentStep(waiting), 'approve-stop-predecessor');
    assert.equal(whereItIs(waiting), 'waiting at approve-stop-predecessor');
    const running: RunbookStatus = {
      ...waiting,
      phase: 'running',
      waiting: null,
      steps: [
        { name: 'preflight', state: 'done' },
        { name: 'push', state: 'running' },
      ],
    };
    assert.equal(whereItIs(running), 'at step push');
    assert.equal(whereItIs({ ...running, steps: [] }), 'starting');
    assert.equal(whereItIs({ ...running, phase: 'completed' }), 'completed');
  });

  it('reports only steps that changed (state or note), and on the first look every step that began', () => {
    const first = waitingAtApproval().steps;
    assert.deepEqual(
      changedSteps(undefined, first).map((step) => step.name),
      ['preflight', 'take', 'approve-stop-predecessor'],
    );
    const next = first.map((step) =>
      step.name === 'stop-predecessor' ? { ...step, state: 'running' as const } : step,
    );
    assert.deepEqual(
      changedSteps(first, next).map((step) => step.name),
      ['stop-predecessor'],
    );
    const noted = first.map((step) => (step.name === 'preflight' ? { ...step, note: 'again' } : step));
    assert.deepEqual(
      changedSteps(first, noted).map((step) => step.name),
      ['preflight'],
    );
    assert.deepEqual(changedSteps(first, first), []);
  });

  it('refuses a second runbook on a node in one sentence naming the runbook, kind, step and starter', () => {
    const sentence = busySentence('runbook-novox', 'edge-flip', 'novox', 'alice', 'waiting at gate-apply');
    assert.equal(
      sentence,
      'Runbook runbook-novox (edge-flip, started by alice) is still running on novox, waiting at gate-apply; a node runs one runbook at a time.',
    );
    assert.equal(sentence.split('. ').length, 1);
  });
});
