import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  classify,
  Evidence,
  Verdict,
  type ContainerEvidence,
  type Inspection,
} from '../../workflows/verdict';

/** Revision 2 of the gate rule: memory of each container across the runbook, and the spec it runs. */

type Seen = Omit<Extract<Inspection, { exists: true }>, 'exists'>;

function web(
  seen: Partial<Seen> | 'missing' = {},
  extra: Partial<ContainerEvidence> = {},
): ContainerEvidence {
  const mounts = [{ source: '/var/lib/forge', destination: '/data' }];
  const observed: Inspection =
    seen === 'missing'
      ? { exists: false }
      : {
          exists: true,
          state: 'running',
          health: 'none',
          restartCount: 0,
          restartCountStable: true,
          mounts,
          id: 'c1',
          image: 'forge:1',
          specHash: 'aaaa',
          ...seen,
        };
  return {
    module: 'forge',
    container: 'web',
    name: 'forge1.forge.web',
    desiredMounts: mounts,
    desiredImage: 'forge:1',
    desiredSpecHash: 'aaaa',
    observed,
    ...extra,
  };
}

function evidence(containers: ContainerEvidence[], more: Partial<Evidence> = {}): Evidence {
  const ids = ['forge/container:web'];
  const apply = {
    pushId: 'p-1',
    node: 'forge1',
    applied: 1,
    appliedIds: ids,
    held: [],
    failed: [],
    finishedAt: '2026-12-01T10:00:00.000Z',
  };
  return Evidence.parse({
    node: 'forge1',
    module: 'forge',
    receipt: { readable: true, value: { pushId: 'p-1', node: 'forge1', sent: 1, resourceIds: ids } },
    report: { readable: true, value: apply },
    nodeState: {
      readable: true,
      value: {
        node: 'forge1',
        adopted: false,
        hostRoot: '/',
        assigned: ['forge'],
        taken: [],
        holds: [],
        lastApply: apply,
      },
    },
    containers,
    healthDeadlinePassed: true,
    revision: 2,
    ...more,
  });
}

const FIRST = { 'forge1.forge.web': { id: 'c1', restartCount: 0, at: '2026-12-01T10:00:05.000Z' } };

describe('verdict revision 2: a container that restarts or runs an old spec is not healthy', () => {
  it('a crash loop slower than the stability window still shows: restarts since first seen fail the gate', () => {
    const v = Verdict.parse(classify(evidence([web({ restartCount: 2 })], { firstSeen: FIRST })));
    assert.equal(v.verdict, 'failed');
    assert.match(
      v.reason,
      /forge1\.forge\.web restarted 2 times since the runbook first saw it at 10:00:05 UTC/,
    );
    // The same evidence without the runbook's memory would pass: that is what revision 2 is for.
    assert.equal(classify(evidence([web({ restartCount: 2 })])).verdict, 'ok');
  });

  it('a new container (new id) starts its count afresh; an unchanged count is ok', () => {
    assert.equal(
      classify(evidence([web({ id: 'c2', restartCount: 1 })], { firstSeen: FIRST })).verdict,
      'ok',
    );
    assert.equal(classify(evidence([web()], { firstSeen: FIRST })).verdict, 'ok');
  });

  it('a container left from an older spec is drift, offering recreate', () => {
    const v = classify(evidence([web({ specHash: 'bbbb', image: 'forge:0' })]));
    assert.equal(v.verdict, 'drift');
    assert.match(
      v.reason,
      /runs spec bbbb where the spec is now aaaa and runs image forge:0 where the spec asks for forge:1/,
    );
    assert.deepEqual(v.actions, ['recreate', 'retry', 'abort']);
    assert.equal(classify(evidence([web({ specHash: 'bbbb' })], { revision: 1 })).verdict, 'ok');
  });

  it('a container still on the old path is unrecreated-volume, not drift, though its spec is older too', () => {
    const moved = web(
      { specHash: 'old', mounts: [{ source: '/srv/forge', destination: '/data' }] },
      { desiredMounts: [{ source: '/var/lib/forge', destination: '/data' }] },
    );
    const v = classify(evidence([moved], { oldHostPaths: ['/srv/forge'] }));
    assert.equal(v.verdict, 'unrecreated-volume');
  });

  it('an unreadable report still shows the containers: a missing one is named, never "0 with problems"', () => {
    const e = evidence([web('missing')], {
      report: { readable: false, source: 'forge1 report', error: 'unexpected end of JSON input' },
    });
    const v = classify(e);
    assert.equal(v.verdict, 'unreadable');
    assert.equal(v.details.containers.length, 1);
    assert.match(v.reason, /also 1 of 1 expected container is failing: forge1\.forge\.web is missing/);
    assert.equal(
      classify({ ...e, revision: 1 }).details.containers.length,
      0,
      'recorded histories judge as before',
    );
  });
});
