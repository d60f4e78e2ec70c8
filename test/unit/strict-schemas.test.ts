import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MeshUnreadableError } from '../../mesh/errors';
import { parseMeshJson } from '../../mesh/parse';
import { ApplyReport, ModuleSpec, PushReceipt } from '../../mesh/schemas';
import { DataPathMoveInput, EdgeFlipInput } from '../../workflows/contracts';
import { classify } from '../../workflows/verdict';

const edgeInput = {
  node: 'novox',
  module: 'route-proxy',
  predecessor: 'caddy',
  publicNames: ['git.example.test'],
  publicAddress: 'http://127.0.0.1:18080',
  successorAddress: 'http://127.0.0.1:18081',
  startedBy: 'alice',
};
const moveInput = {
  node: 'forge1',
  module: 'forge',
  from: '/srv/forge',
  to: '/var/lib/forge',
  startedBy: 'alice',
};

function firstIssue(result: {
  success: boolean;
  error?: { issues: { path: PropertyKey[]; message: string }[] };
}) {
  assert.equal(result.success, false);
  const issue = result.error?.issues[0];
  return `${issue?.path.map(String).join('.')}: ${issue?.message}`;
}

describe('schemas refuse what they do not know', () => {
  it('a misspelt input field is refused at start, naming it, not silently dropped', () => {
    const typo = EdgeFlipInput.safeParse({ ...edgeInput, successorMarkr: 'served by route-proxy' });
    assert.match(firstIssue(typo), /successorMarkr/);
    const timing = DataPathMoveInput.safeParse({ ...moveInput, timings: { stabilityWindow: 5 } });
    assert.match(firstIssue(timing), /stabilityWindow/);
  });

  it('a successor address equal to the public address is refused: the predecessor would pass its probe', () => {
    const same = EdgeFlipInput.safeParse({ ...edgeInput, successorAddress: edgeInput.publicAddress });
    assert.match(firstIssue(same), /^successorAddress: must differ from publicAddress/);
  });

  it('paths with a newline or another control character are refused before anything stops', () => {
    for (const to of [
      '/var/lib/forge\nx',
      '/var/lib/for\tge',
      '/var/lib/forge\u2028',
      '/var/lib/\u0000forge',
    ]) {
      assert.match(
        firstIssue(DataPathMoveInput.safeParse({ ...moveInput, to })),
        /^to: must not contain control/,
      );
    }
    assert.match(
      firstIssue(DataPathMoveInput.safeParse({ ...moveInput, from: 'srv/forge' })),
      /^from: must be an absolute/,
    );
  });

  it('a report with a field this runbook cannot judge is unreadable, naming the field; the verdict waits', () => {
    const report = {
      pushId: 'p1',
      node: 'novox',
      applied: 1,
      appliedIds: ['route-proxy/container:edge'],
      held: [],
      failed: [],
      finishedAt: '2026-12-01T10:00:00.000Z',
      deferred: ['route-proxy/container:acme'],
    };
    const error = (() => {
      try {
        parseMeshJson(ApplyReport, JSON.stringify(report), 'novox report');
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    assert.ok(error instanceof MeshUnreadableError);
    assert.match(error.message, /deferred/);
    const receipt = PushReceipt.parse({
      pushId: 'p1',
      node: 'novox',
      sent: 1,
      resourceIds: ['route-proxy/container:edge'],
    });
    const verdict = classify({
      node: 'novox',
      module: 'route-proxy',
      receipt: { readable: true, value: receipt },
      report: { readable: false, source: 'novox report', error: error.message },
      nodeState: { readable: false, source: 'novox state', error: error.message },
      containers: [],
      healthDeadlinePassed: true,
    });
    assert.equal(verdict.verdict, 'unreadable');
    assert.ok(!verdict.actions.includes('take'));
  });

  it('a module file with a misspelt key is refused naming it', () => {
    const spec = {
      module: 'forge',
      containers: [{ name: 'web', image: 'x', helthcheck: { test: ['CMD', 'true'] } }],
    };
    assert.match(firstIssue(ModuleSpec.safeParse(spec)), /helthcheck/);
  });
});
