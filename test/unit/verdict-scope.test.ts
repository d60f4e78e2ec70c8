import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classify, Evidence } from '../../workflows/verdict';

/**
 * An undo's push taking route-proxy off novox, on a node where ledger's leftover data is held and cache
 * failed: judged for the whole node it can never be ok; judged for its own module it is.
 */
function removalPush(scope?: 'module' | 'node'): Evidence {
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
    ...(scope ? { scope } : {}),
  });
}

describe('an undo judges only what the runbook changed (verdict scope)', () => {
  it('for the whole node, other modules’ hold, failure and unapplied resource make the removal fail', () => {
    for (const scope of [undefined, 'node'] as const) {
      const verdict = classify(removalPush(scope));
      assert.equal(verdict.verdict, 'drift', verdict.reason);
      assert.equal(verdict.details.elsewhere, undefined);
    }
  });

  it('for its own module, the removal is ok and names what it left alone, one sentence each', () => {
    const verdict = classify(removalPush('module'));
    assert.equal(verdict.verdict, 'ok', verdict.reason);
    assert.deepEqual(verdict.details.elsewhere, [
      'ledger/dir:/srv/ledger of ledger held: found /srv/ledger; not touched until ledger is taken',
      'cache/container:kv of cache failed: image not found',
      'metrics/dir:/srv/m of metrics sent and not applied',
    ]);
  });

  it('for its own module, its own hold or failure still fails it', () => {
    const own = removalPush('module');
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
});
