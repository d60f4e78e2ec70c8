import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classify, Evidence } from '../../workflows/verdict';

/**
 * An undo's push taking route-proxy off novox, on a node where ledger's leftover data is held and cache
 * failed: judged for the whole node it can never be ok; judged for the modules the flip changed (route-proxy,
 * and caddy, the predecessor it stopped) it is.
 */
function removalPush(judgedModules?: string[]): Evidence {
  const sent = ['caddy/container:edge', 'ledger/dir:/srv/ledger', 'cache/container:kv', 'metrics/dir:/srv/m'];
  const held = [
    {
      resource: 'ledger/dir:/srv/ledger',
      module: 'ledger',
      reason: 'found /srv/ledger; not touched until ledger is taken',
    },
  ];
  const failed = [{ resource: 'cache/container:kv', module: 'cache', error: 'image not found' }];
  const apply = {
    pushId: 'p-9',
    node: 'novox',
    applied: 1,
    appliedIds: ['caddy/container:edge'],
    held,
    failed,
    finishedAt: '2026-12-01T10:00:00.000Z',
  };
  return Evidence.parse({
    node: 'novox',
    module: 'route-proxy',
    receipt: { readable: true, value: { pushId: 'p-9', node: 'novox', sent: 4, resourceIds: sent } },
    report: { readable: true, value: apply },
    nodeState: {
      readable: true,
      value: {
        node: 'novox',
        adopted: true,
        hostRoot: '/',
        assigned: ['caddy', 'ledger', 'cache', 'metrics'],
        taken: [],
        holds: held,
        lastApply: apply,
      },
    },
    containers: [],
    healthDeadlinePassed: true,
    revision: 2,
    ...(judgedModules ? { judgedModules } : {}),
  });
}

describe('an undo judges only what the runbook changed (verdict scope)', () => {
  it('for the whole node, other modules’ hold, failure and unapplied resource make the removal fail', () => {
    const verdict = classify(removalPush());
    assert.equal(verdict.verdict, 'drift', verdict.reason);
    assert.equal(verdict.details.elsewhere, undefined);
  });

  it('for the modules it changed, the removal is ok and names what it left alone, one sentence each', () => {
    const verdict = classify(removalPush(['route-proxy', 'caddy']));
    assert.equal(verdict.verdict, 'ok', verdict.reason);
    assert.deepEqual(verdict.details.elsewhere, [
      'ledger/dir:/srv/ledger of ledger held: found /srv/ledger; not touched until ledger is taken',
      'cache/container:kv of cache failed: image not found',
      'metrics/dir:/srv/m of metrics sent and not applied',
    ]);
  });

  it('for the modules it changed, their own hold or failure still fails it', () => {
    const own = removalPush(['route-proxy', 'caddy']);
    const hold = { resource: 'route-proxy/dir:/srv/rp', module: 'route-proxy', reason: 'found /srv/rp' };
    if (own.report.readable && own.nodeState.readable) {
      own.report.value.held.push(hold);
      own.nodeState.value.holds.push(hold);
    }
    if (own.receipt.readable) {
      own.receipt.value.resourceIds.push(hold.resource);
      own.receipt.value.sent += 1;
    }
    const verdict = classify(own);
    assert.equal(verdict.verdict, 'held', verdict.reason);
    assert.deepEqual(
      verdict.details.held.map((h) => h.module),
      ['route-proxy'],
    );
  });

  it('for the modules it changed, the predecessor’s resource sent and not applied still fails it (a misreport)', () => {
    const misreported = removalPush(['route-proxy', 'caddy']);
    if (misreported.report.readable && misreported.nodeState.readable) {
      misreported.report.value.appliedIds = [];
      misreported.report.value.applied = 0;
      misreported.nodeState.value.lastApply = misreported.report.value;
    }
    const verdict = classify(misreported);
    assert.equal(verdict.verdict, 'drift', verdict.reason);
    assert.deepEqual(verdict.details.missing, ['caddy/container:edge']);
  });
});
