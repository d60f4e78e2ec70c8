import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RunbookPolicy } from '../../workflows/policy';
import { policyRefusal } from '../../workflows/runbook/approvers';
import { decisionInput, renderDetails } from '../../workflows/runbook/details';
import { evidenceChange, evidenceHash, type Evidence } from '../../workflows/runbook/evidence';
import type { RunbookStatus } from '../../workflows/contracts';

const held: Evidence = {
  gate: 'gate-apply',
  verdict: 'held',
  reason: 'route-proxy is assigned to novox but not taken: 6 resources are held.',
  actions: ['take', 'recheck', 'abort'],
  facts: ['held: sent 7, applied 1, held 6', 'held route-proxy/dir:config (route-proxy): adopted'],
};

describe('evidence hash', () => {
  it('is short, stable for the same evidence and changes with any fact', () => {
    assert.match(evidenceHash(held), /^[0-9a-f]{10}$/);
    assert.equal(evidenceHash({ ...held }), evidenceHash(held));
    assert.notEqual(evidenceHash({ ...held, facts: held.facts.slice(1) }), evidenceHash(held));
    assert.notEqual(evidenceHash({ ...held, actions: ['take', 'abort'] }), evidenceHash(held));
  });

  it('says what changed: the facts gone and added at the same gate, or the gate the runbook moved to', () => {
    const fewer = { ...held, facts: ['held: sent 7, applied 5, held 2'] };
    assert.equal(
      evidenceChange(held, fewer),
      'at gate-apply no longer: held: sent 7, applied 1, held 6; no longer: held route-proxy/dir:config (route-proxy): adopted; now: held: sent 7, applied 5, held 2',
    );
    const approval: Evidence = {
      gate: 'approve-stop-predecessor',
      verdict: 'approval',
      reason: 'ok',
      actions: ['approve'],
      facts: [],
    };
    assert.match(
      evidenceChange(held, approval),
      /^it was shown at gate gate-apply \(held: .*\); the runbook now waits at approve-stop-predecessor \(approval\)$/,
    );
  });
});

describe('decision policy', () => {
  const policy = RunbookPolicy.parse({ approvers: { '*': ['alice', 'bob'], 'gate-apply': ['carol'] } });

  it('four eyes on the destructive gates by default, not on the others', () => {
    assert.match(policyRefusal(policy, 'approve-stop-predecessor', 'alice', 'alice') ?? '', /four eyes/);
    assert.match(policyRefusal(policy, 'approve-remove-old-data', 'bob', 'bob') ?? '', /four eyes/);
    assert.equal(policyRefusal(policy, 'approve-stop-predecessor', 'bob', 'alice'), undefined);
    assert.equal(policyRefusal(RunbookPolicy.parse({}), 'gate-apply', 'alice', 'alice'), undefined);
  });

  it("holds a fleet's approve-waves to the rules of approve-stop-predecessor, which it approves for the later nodes", () => {
    const fleet = RunbookPolicy.parse({ approvers: { 'approve-stop-predecessor': ['bob', 'carol'] } });
    assert.equal(policyRefusal(fleet, 'approve-waves', 'bob', 'alice'), undefined);
    assert.equal(
      policyRefusal(fleet, 'approve-waves', 'dave', 'alice'),
      "dave may not decide at approve-waves; the policy allows bob, carol. (approve-waves approves approve-stop-predecessor for the fleet's later nodes: its rules apply.)",
    );
    assert.match(
      policyRefusal(fleet, 'approve-waves', 'bob', 'bob') ?? '',
      /^bob started this runbook and may not also approve approve-waves \(four eyes\)/,
    );
    const noFourEyes = RunbookPolicy.parse({ fourEyes: [] });
    assert.equal(policyRefusal(noFourEyes, 'approve-waves', 'alice', 'alice'), undefined);
  });

  it('a gate listed names its approvers; * covers every other gate', () => {
    assert.equal(policyRefusal(policy, 'gate-apply', 'carol', 'alice'), undefined);
    assert.equal(
      policyRefusal(policy, 'gate-apply', 'bob', 'alice'),
      'bob may not decide at gate-apply; the policy allows carol.',
    );
    assert.equal(
      policyRefusal(policy, 'verify-copy', 'dave', 'alice'),
      'dave may not decide at verify-copy; the policy allows alice, bob.',
    );
  });
});

const status: RunbookStatus = {
  id: 'runbook-novox',
  kind: 'edge-flip',
  node: 'novox',
  module: 'route-proxy',
  startedBy: 'alice',
  phase: 'waiting',
  waiting: {
    ...held,
    evidence: evidenceHash(held),
    since: '2026-11-29T10:00:00.000Z',
    reminders: 2,
    lastReminder: 'sent to webhook https://chat/hook',
  },
  steps: [
    {
      name: 'preflight',
      state: 'done',
      startedAt: '2026-11-29T09:59:58.000Z',
      endedAt: '2026-11-29T09:59:59.500Z',
      note: 'caddy serves 3 name(s)',
    },
    { name: 'gate-apply', state: 'waiting', startedAt: '2026-11-29T09:59:59.600Z' },
    { name: 'take', state: 'pending' },
  ],
  decisions: [],
  refused: [
    {
      gate: 'gate-apply',
      action: 'take',
      by: 'mallory',
      at: '2026-11-29T10:01:00.000Z',
      refusal: 'mallory may not decide at gate-apply; the policy allows carol.',
    },
  ],
};

describe('current details for the Web UI', () => {
  it('show stalled work: which activity at which step stands still since when, on which node queue', () => {
    const details = renderDetails({
      ...status,
      waiting: null,
      phase: 'running',
      stalled: {
        activity: 'copyTree',
        activityId: '7',
        taskQueue: 'mesh-runbook@forge1',
        since: '2026-12-03T10:00:00.000Z',
        stalledAfterMs: 600_000,
        progress: '120 of 2000 files, 1048576 of 8388608 bytes',
        step: 'copy',
      },
    });
    assert.ok(
      details.includes(
        '### Stalled at copy\n\ncopyTree at step copy has made no progress since 10:00:00 UTC (more than 10m00s; 120 of 2000 files, 1048576 of 8388608 bytes) though the worker on mesh-runbook@forge1 still beats for it',
      ),
      details,
    );
  });

  it('show the sentence, the evidence, how to send each action from the UI, the checklist and refusals', () => {
    const details = renderDetails(status);
    for (const expected of [
      held.reason,
      `Evidence \`${evidenceHash(held)}\` · reminders sent: 2 (sent to webhook https://chat/hook)`,
      '- held route-proxy/dir:config (route-proxy): adopted',
      'Update name `decide`',
      `\`${decisionInput(status.waiting!, 'take')}\``,
      '- ✔ **preflight** done · 09:59:58 → 09:59:59 (1.5s) · caddy serves 3 name(s)',
      '- ‖ **gate-apply** waiting · 09:59:59',
      '- refused: take at gate-apply by mallory, 10:01:00 UTC — mallory may not decide at gate-apply; the policy allows carol.',
      `mesh runbook decide runbook-novox <action> --evidence ${evidenceHash(held)}`,
    ])
      assert.ok(details.includes(expected), `details lack: ${expected}\n---\n${details}`);
    assert.deepEqual(JSON.parse(decisionInput(status.waiting!, 'take')), {
      action: 'take',
      by: '',
      identity: 'web-ui',
      evidence: evidenceHash(held),
      comment: '',
    });
  });
});

describe('what operators type is shown as typed in the Web UI details', () => {
  it('escapes markdown in by, comment and startedBy', async () => {
    const { plain } = await import('../../workflows/runbook/details');
    assert.equal(plain('*bob* [me](http://x) `rm`'), '\\*bob\\* \\[me\\](http://x) \\`rm\\`');
    assert.equal(plain('two\nlines'), 'two lines');
    const details = renderDetails({
      ...status,
      startedBy: '_alice_',
      decisions: [
        {
          action: 'take',
          gate: 'gate-apply',
          by: '**bob**',
          at: status.refused[0]!.at,
          comment: '<b>ok</b>',
        },
      ],
    });
    assert.ok(details.includes('started by \\_alice\\_'), details);
    assert.ok(details.includes('by \\*\\*bob\\*\\*, '), details);
    assert.ok(details.includes('“\\<b\\>ok\\</b\\>”'), details);
  });
});

describe('what nodes say is shown as text in the Web UI details, never as Markdown or HTML', () => {
  const HOSTILE =
    '*bold* _em_ [x](javascript:alert(1)) ![i](http://x/i.png) <img src=x onerror=alert(1)> `code` &lt;b&gt; ~~gone~~ | a | \u001b[2J\u202eevil';
  const SHOWN =
    '\\*bold\\* \\_em\\_ \\[x\\](javascript:alert(1)) \\!\\[i\\](http://x/i.png) \\<img src=x onerror=alert(1)\\> \\`code\\` \\&lt;b\\&gt; \\~\\~gone\\~\\~ \\| a \\| \\\\u001b\\[2J\\\\u202eevil';

  it("escapes a hold's reason, facts, step notes, the outcome and where a reminder went", () => {
    const details = renderDetails({
      ...status,
      waiting: { ...status.waiting!, reason: HOSTILE, facts: [HOSTILE], lastReminder: HOSTILE },
      steps: [{ ...status.steps[0]!, note: HOSTILE }],
      outcome: HOSTILE,
    });
    const lines = details.split('\n');
    for (const [where, line] of [
      ['reason', lines.find((l) => l.startsWith('\\*bold'))],
      ['fact', lines.find((l) => l.startsWith('- \\*bold'))?.slice(2)],
      [
        'note',
        lines
          .find((l) => l.startsWith('- ✔ **preflight**'))
          ?.split(' · ')
          .at(-1),
      ],
      ['outcome', lines.find((l) => l.startsWith('Outcome: '))?.slice('Outcome: '.length)],
      [
        'reminder',
        /reminders sent: 2 \((.*)\)$/.exec(lines.find((l) => l.startsWith('Evidence')) ?? '')?.[1],
      ],
    ])
      assert.equal(line, SHOWN, `${where}:\n${details}`);
  });

  it('turns a line that would start a block (heading, list, quote, rule) into text', async () => {
    const { plain } = await import('../../workflows/runbook/details');
    assert.equal(plain('# big'), '\\# big');
    assert.equal(plain('- item'), '\\- item');
    assert.equal(plain('+ item'), '\\+ item');
    assert.equal(plain('1. first'), '1\\. first');
    assert.equal(plain('2) second'), '2\\) second');
    assert.equal(plain('> quoted'), '\\> quoted');
    assert.equal(plain('--- rule'), '\\--- rule');
    assert.equal(plain('=== underline'), '\\=== underline');
    assert.equal(plain('route-proxy/dir:config (route-proxy)'), 'route-proxy/dir:config (route-proxy)');
  });
});
