import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FailedResource, HeldResource } from '../../mesh/schemas';
import { classify, Evidence, Verdict } from '../../workflows/verdict';
import type { ContainerEvidence, Inspection, Mount } from '../../workflows/verdict';

// ---- builders: a converged forge module on node forge1 unless a test says otherwise ----

type Seen = Omit<Extract<Inspection, { exists: true }>, 'exists'>;
const WEB: Mount[] = [{ source: '/var/lib/forge', destination: '/data' }];
const DB: Mount[] = [{ source: '/var/lib/forge/db', destination: '/var/lib/postgresql' }];

function ctr(
  name: string,
  desired: Mount[],
  seen: Partial<Seen> | 'missing' = {},
  module = 'forge',
): ContainerEvidence {
  const observed: Inspection =
    seen === 'missing'
      ? { exists: false }
      : {
          exists: true,
          state: 'running',
          health: 'healthy',
          restartCount: 0,
          restartCountStable: true,
          mounts: desired,
          ...seen,
        };
  return { module, container: name.replace(`${module}-`, ''), name, desiredMounts: desired, observed };
}

interface Scenario {
  node?: string;
  module?: string;
  sent?: string[];
  applied?: string[];
  held?: HeldResource[];
  stateHolds?: HeldResource[];
  failed?: FailedResource[];
  assigned?: string[];
  taken?: string[];
  containers?: ContainerEvidence[];
  oldHostPaths?: string[];
  healthDeadlinePassed?: boolean;
  reportPushId?: string;
}

const FORGE_IDS = ['forge/dir:/var/lib/forge', 'forge/container:web', 'forge/container:db'];

function evidence(s: Scenario = {}): Evidence {
  const node = s.node ?? 'forge1';
  const sent = s.sent ?? FORGE_IDS;
  const applied = s.applied ?? sent;
  const lastApply = {
    pushId: s.reportPushId ?? 'p-1',
    node,
    applied: applied.length,
    appliedIds: applied,
    held: s.held ?? [],
    failed: s.failed ?? [],
    finishedAt: '2026-09-26T15:25:27.000Z',
  };
  const state = {
    node,
    adopted: true,
    hostRoot: '/',
    assigned: s.assigned ?? [s.module ?? 'forge'],
    taken: s.taken ?? [s.module ?? 'forge'],
    holds: s.stateHolds ?? s.held ?? [],
    lastApply,
  };
  return Evidence.parse({
    node,
    module: s.module ?? 'forge',
    receipt: { readable: true, value: { pushId: 'p-1', node, sent: sent.length, resourceIds: sent } },
    report: { readable: true, value: lastApply },
    nodeState: { readable: true, value: state },
    containers: s.containers ?? [ctr('forge-web', WEB), ctr('forge-db', DB)],
    oldHostPaths: s.oldHostPaths,
    healthDeadlinePassed: s.healthDeadlinePassed ?? true,
  });
}

const range = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));
const hold = (
  resource: string,
  reason = 'found on this adopted node; not run until taken',
): HeldResource => ({
  resource,
  module: resource.split('/')[0] ?? '',
  reason,
});

/** Classifies, checks the verdict's shape and the one-sentence rule, and that the reason names `names`. */
function judge(e: Evidence, ...names: string[]): Verdict {
  const v = Verdict.parse(classify(e));
  assert.doesNotMatch(v.reason, /\n/, 'one line');
  assert.match(v.reason, /[^.]\.$/, 'ends with one period');
  assert.doesNotMatch(v.reason.slice(0, -1), /[.!?](\s|$)/, `one sentence: ${v.reason}`);
  for (const name of names) assert.ok(v.reason.includes(name), `reason names ${name}: ${v.reason}`);
  if (v.verdict === 'ok') assert.deepEqual(v.actions, []);
  else assert.equal(v.actions.at(-1), 'abort');
  return v;
}

// ---- the incident (docs/design.md §1, incident 1): sent 346, applied 330, 16 held for route-proxy ----

const RP_REASON =
  'would mount /var/lib/route-proxy/ca, found on this adopted node; not run until route-proxy is taken';
const RP_HOLDS = [
  ...range(13, (i) => hold(`route-proxy/dir:/var/lib/route-proxy/d${i}`, RP_REASON)),
  ...['edge', 'ca', 'dns'].map((c) => hold(`route-proxy/container:${c}`, RP_REASON)),
];
const OTHERS = range(330, (i) => `caddy/dir:/srv/caddy/d${i}`);
const RP_CONTAINERS = ['edge', 'ca', 'dns'].map((c) =>
  ctr(
    `route-proxy-${c}`,
    [{ source: `/var/lib/route-proxy/${c}`, destination: '/data' }],
    'missing',
    'route-proxy',
  ),
);
const incident = (s: Scenario = {}): Evidence =>
  evidence({
    node: 'novox',
    module: 'route-proxy',
    sent: [...OTHERS, ...RP_HOLDS.map((h) => h.resource)],
    applied: OTHERS,
    held: RP_HOLDS,
    assigned: ['caddy', 'route-proxy'],
    taken: ['caddy'],
    containers: RP_CONTAINERS,
    ...s,
  });

describe('verdict: the route-proxy incident', () => {
  it('is held, names module, counts, containers and the node reason, and offers take', () => {
    const v = judge(
      incident(),
      'route-proxy is assigned to novox but not taken',
      '16 resources',
      '330 of 346',
    );
    assert.equal(v.verdict, 'held');
    assert.deepEqual(v.actions, ['take', 'retry', 'abort']);
    assert.ok(v.reason.includes('route-proxy-edge, route-proxy-ca, route-proxy-dns'));
    assert.ok(v.reason.includes(RP_REASON), 'quotes the node');
    assert.deepEqual(v.details.heldBack, ['route-proxy-edge', 'route-proxy-ca', 'route-proxy-dns']);
    assert.equal(v.details.held.length, 16);
    assert.deepEqual([v.details.missing, v.details.containers], [[], []]);
  });
  it('is held even when the apply report lists no hold and only the node state has them', () => {
    const v = judge(incident({ held: [], stateHolds: RP_HOLDS }), '16 resources');
    assert.equal(v.verdict, 'held');
    assert.deepEqual(v.details.missing, []);
  });
  it('counts a hold listed by both report and node state once', () => {
    assert.equal(classify(incident({ held: RP_HOLDS, stateHolds: RP_HOLDS })).details.held.length, 16);
  });
  it('is unreadable, not held, when the node state does not parse', () => {
    const e = {
      ...incident(),
      nodeState: { readable: false as const, source: 'novox state.json', error: 'is empty' },
    };
    assert.equal(judge(e, 'novox state.json').verdict, 'unreadable');
  });
});

describe('verdict: held', () => {
  const photos = range(3, (i) => `photos/dir:/srv/photos/p${i}`);
  it('does not offer take when every hold is for another module', () => {
    const e = evidence({
      sent: [...FORGE_IDS, ...photos],
      applied: FORGE_IDS,
      held: photos.map((id) => hold(id)),
    });
    const v = judge(e, 'forge1 holds 3 resources of photos', '3 of 6 sent');
    assert.equal(v.verdict, 'held');
    assert.deepEqual(v.actions, ['retry', 'abort']);
  });
  it('offers take when any hold is the runbook module, and names both modules', () => {
    const held = [...photos.map((id) => hold(id)), hold('forge/dir:/var/lib/forge')];
    const e = evidence({ sent: [...FORGE_IDS, ...photos], applied: FORGE_IDS.slice(1), held, taken: [] });
    const v = judge(e, 'forge1 holds 4 resources', '3 of photos', '1 of forge (assigned but not taken)');
    assert.equal(v.verdict, 'held');
    assert.deepEqual(v.actions, ['take', 'retry', 'abort']);
    assert.deepEqual(v.details.heldBack, [], 'both containers run on the held dir already');
  });
  it('does not offer take when the runbook module is already taken', () => {
    const e = evidence({ applied: FORGE_IDS.slice(1), held: [hold('forge/dir:/var/lib/forge')] });
    assert.deepEqual(judge(e, 'forge1 holds 1 resource of forge').actions, ['retry', 'abort']);
  });
  it('keeps a node reason with sentence breaks and newlines inside one sentence', () => {
    const held = [hold('photos/dir:/srv/photos/p0', 'Held.\nRun take first!  Then push. ')];
    const v = judge(evidence({ sent: [...FORGE_IDS, photos[0] ?? ''], applied: FORGE_IDS, held }));
    assert.ok(v.reason.includes('"Held; Run take first; Then push"'), v.reason);
  });
});

describe('verdict: ok', () => {
  it('is ok when everything was applied and every container runs healthy on its desired paths', () => {
    const v = judge(evidence(), 'forge1 applied all 3 resources of push p-1', '2 expected containers');
    assert.equal(v.verdict, 'ok');
    assert.deepEqual(v.details, {
      unreadable: [],
      held: [],
      heldBack: [],
      missing: [],
      notSent: [],
      failedResources: [],
      containers: [],
    });
  });
  it('accepts a container without healthcheck, no containers at all, and differently spelled paths', () => {
    assert.equal(judge(evidence({ containers: [ctr('forge-web', WEB, { health: 'none' })] })).verdict, 'ok');
    assert.equal(judge(evidence({ containers: [] }), 'no containers are expected').verdict, 'ok');
    const spelled = ctr('forge-web', WEB, {
      mounts: [{ source: '/var//lib/forge/', destination: '/data/' }],
    });
    assert.equal(judge(evidence({ containers: [spelled] })).verdict, 'ok');
  });
  it('is pure: same evidence, same verdict, evidence untouched', () => {
    const e = incident();
    const before = structuredClone(e);
    assert.deepEqual(classify(e), classify(e));
    assert.deepEqual(e, before);
  });
});

describe('verdict: drift', () => {
  it('names the missing resources when applied < sent and nothing explains it', () => {
    const v = judge(
      evidence({ applied: FORGE_IDS.slice(0, 1) }),
      '1 of 3 sent',
      'forge/container:web, forge/container:db',
    );
    assert.equal(v.verdict, 'drift');
    assert.deepEqual(v.actions, ['retry', 'abort']);
    assert.deepEqual(v.details.missing, ['forge/container:web', 'forge/container:db']);
  });
  it('catches ids that differ with the same count', () => {
    const applied = ['forge/dir:/var/lib/forge', 'forge/container:web', 'forge/container:cache'];
    const v = judge(
      evidence({ applied }),
      '3 of 3 sent',
      '1 missing resource',
      'forge/container:db',
      'never sent',
    );
    assert.equal(v.verdict, 'drift');
    assert.deepEqual(
      [v.details.missing, v.details.notSent],
      [['forge/container:db'], ['forge/container:cache']],
    );
  });
  it('reports held and drift together: drift is the verdict, both are named, take is still offered', () => {
    const e = incident({ held: RP_HOLDS.slice(0, 14), stateHolds: [] });
    const v = judge(
      e,
      '330 of 346',
      '2 missing resources',
      'route-proxy/container:ca',
      'not taken: 14 resources',
    );
    assert.equal(v.verdict, 'drift');
    assert.deepEqual(v.details.missing, ['route-proxy/container:ca', 'route-proxy/container:dns']);
    assert.equal(v.details.held.length, 14);
    assert.deepEqual(v.actions, ['take', 'retry', 'abort']);
    assert.ok(v.reason.indexOf('missing') < v.reason.indexOf('not taken'), 'the verdict comes first');
  });
  it('shortens long id lists in the reason and keeps them all in the details', () => {
    const v = judge(incident({ held: [], stateHolds: [] }), '16 missing resources', 'and 11 more');
    assert.equal(v.verdict, 'drift');
    assert.equal(v.details.missing.length, 16);
  });
});

describe('verdict: failed', () => {
  it('names resources the node failed to apply, with its error', () => {
    const failed = [{ resource: 'forge/container:db', module: 'forge', error: 'image forge-db:7 not found' }];
    const e = evidence({ applied: FORGE_IDS.slice(0, 2), failed, containers: [ctr('forge-web', WEB)] });
    const v = judge(
      e,
      'forge1 failed to apply 1 resource',
      'forge/container:db',
      'image forge-db:7 not found',
    );
    assert.equal(v.verdict, 'failed');
    assert.deepEqual(v.actions, ['retry', 'abort']);
    assert.deepEqual(v.details.missing, [], 'a failure explains the missing id');
  });
  const modes: [string, Partial<Seen> | 'missing', string][] = [
    ['missing', 'missing', 'forge-web is missing'],
    ['exited', { state: 'exited' }, 'forge-web has exited'],
    ['created, never started', { state: 'created' }, 'forge-web was created but never started'],
    ['restarting', { state: 'restarting' }, 'forge-web is restarting'],
    ['paused', { state: 'paused' }, 'forge-web is paused'],
    ['dead', { state: 'dead' }, 'forge-web is dead'],
    ['restart count rising', { restartCount: 4, restartCountStable: false }, 'restart count 4 and rising'],
    ['unhealthy', { health: 'unhealthy' }, 'forge-web is unhealthy'],
    [
      'starting past the deadline',
      { health: 'starting' },
      'forge-web is still starting past its health deadline',
    ],
  ];
  for (const [mode, seen, phrase] of modes) {
    it(`fails a container that is ${mode}`, () => {
      const e = evidence({ containers: [ctr('forge-web', WEB, seen), ctr('forge-db', DB)] });
      const v = judge(e, '1 of 2 expected containers is failing', phrase);
      assert.equal(v.verdict, 'failed');
      assert.deepEqual(v.actions, ['retry', 'abort']);
      assert.deepEqual(
        v.details.containers.map((c) => c.name),
        ['forge-web'],
      );
    });
  }
  it('names every failing container and all that is wrong with each', () => {
    const containers = [
      ctr('forge-web', WEB, {
        state: 'exited',
        restartCount: 9,
        restartCountStable: false,
        health: 'unhealthy',
      }),
      ctr('forge-db', DB, 'missing'),
    ];
    const v = judge(
      evidence({ containers }),
      '2 of 2 expected containers are failing',
      'forge-db is missing',
    );
    assert.ok(v.reason.includes('forge-web has exited and keeps restarting (restart count 9 and rising)'));
    assert.ok(!v.reason.includes('unhealthy'), 'health of a stopped container is not judged');
  });
});

describe('verdict: unrecreated-volume (the data-path move)', () => {
  const OLD = '/srv/forge';
  const onOld = (name: string, desired: Mount[], old: string) =>
    ctr(name, desired, { mounts: desired.map((m) => ({ ...m, source: old })) });
  it('names the running container, its current old path and its desired path; offers recreate', () => {
    const e = evidence({
      oldHostPaths: [OLD],
      containers: [onOld('forge-web', WEB, OLD), ctr('forge-db', DB)],
    });
    const v = judge(
      e,
      '1 running container was not recreated',
      'forge-web mounts /srv/forge (an old path) at /data instead of /var/lib/forge',
    );
    assert.equal(v.verdict, 'unrecreated-volume');
    assert.deepEqual(v.actions, ['recreate', 'abort']);
    assert.deepEqual(v.details.containers[0]?.mounts, [
      { destination: '/data', current: OLD, desired: '/var/lib/forge', oldPath: true },
    ]);
  });
  it('names every container that was not recreated', () => {
    const e = evidence({
      oldHostPaths: [OLD],
      containers: [onOld('forge-web', WEB, OLD), onOld('forge-db', DB, `${OLD}/db`)],
    });
    const v = judge(
      e,
      '2 running containers were not recreated',
      'forge-web mounts /srv/forge (an old path)',
      'forge-db mounts /srv/forge/db (an old path) at /var/lib/postgresql instead of /var/lib/forge/db',
    );
    assert.equal(v.verdict, 'unrecreated-volume');
    assert.equal(v.details.containers.length, 2);
  });
  it('also flags a differing, a missing and an unwanted mount without any old path given', () => {
    const mounts = [
      { source: '/var/lib/elsewhere', destination: '/data' },
      { source: '/tmp/scratch', destination: '/scratch' },
    ];
    const desired = [...WEB, { source: '/var/lib/forge/conf', destination: '/etc/forge' }];
    const v = judge(
      evidence({ containers: [ctr('forge-web', desired, { mounts })] }),
      'forge-web mounts /var/lib/elsewhere at /data instead of /var/lib/forge',
      'does not mount /var/lib/forge/conf at /etc/forge',
      'mounts /tmp/scratch at /scratch, which the spec does not',
    );
    assert.equal(v.verdict, 'unrecreated-volume');
    assert.ok(!v.reason.includes('old path'));
  });
  it('fails (not unrecreated) a stopped container on the old path, and keeps its mounts in the details', () => {
    const web = ctr('forge-web', WEB, { state: 'exited', mounts: [{ source: OLD, destination: '/data' }] });
    const v = judge(evidence({ oldHostPaths: [OLD], containers: [web] }), 'forge-web has exited');
    assert.equal(v.verdict, 'failed');
    assert.equal(v.details.containers[0]?.mounts[0]?.oldPath, true);
  });
});

describe('verdict: health deadline', () => {
  const starting = (passed: boolean) =>
    evidence({
      healthDeadlinePassed: passed,
      containers: [ctr('forge-web', WEB, { health: 'starting' }), ctr('forge-db', DB)],
    });
  it('before the deadline, a starting container is pending: check again, never ok', () => {
    const v = judge(starting(false), 'container forge-web is still starting before the health deadline');
    assert.equal(v.verdict, 'pending');
    assert.deepEqual(v.actions, ['recheck', 'abort']);
    assert.equal(v.details.containers[0]?.starting, true);
  });
  it('after the deadline, the same container has failed', () => {
    const v = judge(starting(true), 'forge-web is still starting past its health deadline');
    assert.equal(v.verdict, 'failed');
  });
  it('an unhealthy container fails even before the deadline', () => {
    const e = evidence({
      healthDeadlinePassed: false,
      containers: [ctr('forge-web', WEB, { health: 'unhealthy' })],
    });
    assert.equal(judge(e, 'forge-web is unhealthy').verdict, 'failed');
  });
});

describe('verdict: unreadable', () => {
  const broken = (source: string, error: string) => ({ readable: false as const, source, error });
  const cases = [
    [
      'receipt',
      'push receipt from mesh push --json',
      broken('mesh push --json', 'the document is not valid JSON (truncated?)'),
    ],
    [
      'report',
      'apply report from novox state.json',
      broken('novox state.json', 'field "lastApply.applied" expected number'),
    ],
    ['nodeState', 'node state from novox state.json', broken('novox state.json', 'the document is empty')],
  ] as const;
  for (const [input, label, value] of cases) {
    it(`pauses when the ${input} does not parse, even over the incident's holds`, () => {
      const v = judge(
        { ...incident(), [input]: value },
        label,
        'novox is inconclusive',
        value.error.replace(/"/g, "'"),
      );
      assert.equal(v.verdict, 'unreadable');
      assert.deepEqual(v.actions, ['recheck', 'retry', 'abort']);
      assert.deepEqual(v.details.unreadable, [{ input, source: value.source, error: value.error }]);
      assert.deepEqual(v.details.held, [], 'nothing else is judged');
    });
  }
  it('names every unreadable input, and a multi-line error stays one sentence', () => {
    const e = {
      ...incident(),
      receipt: cases[0][2],
      report: cases[1][2],
      nodeState: broken('novox', 'Line one.\nLine two.'),
    };
    const v = judge(
      e,
      'push receipt',
      'apply report',
      'node state from novox is unreadable (Line one; Line two)',
    );
    assert.equal(v.details.unreadable.length, 3);
  });
  it('does not take a report of another push as evidence for this push', () => {
    const v = judge(
      evidence({ reportPushId: 'p-0' }),
      'apply report from node forge1',
      'it is for push p-0, not p-1',
    );
    assert.equal(v.verdict, 'unreadable');
  });
  it('does not take holds from a node state whose last apply is another push', () => {
    const e = evidence();
    if (!e.nodeState.readable || !e.report.readable) throw new Error('fixture');
    const state = e.nodeState.value;
    const stale = (lastApply: typeof state.lastApply) =>
      judge({ ...e, nodeState: { readable: true, value: { ...state, lastApply } } });
    const older = stale({ ...e.report.value, pushId: 'p-0' });
    assert.ok(
      older.reason.includes(
        'node state from node forge1 is unreadable (its holds are from push p-0, not p-1)',
      ),
    );
    assert.equal(older.verdict, 'unreadable');
    assert.ok(stale(null).reason.includes('its holds are from no apply, not p-1'));
  });
  it('does not take documents about another node', () => {
    const e = evidence();
    const v = judge({ ...e, node: 'novox' }, 'it is for node forge1, not novox');
    assert.equal(v.verdict, 'unreadable');
    assert.deepEqual(
      v.details.unreadable.map((u) => u.input),
      ['receipt', 'report', 'nodeState'],
    );
  });
  it('does not trust counts that disagree with their own id lists', () => {
    const e = evidence();
    if (!e.receipt.readable || !e.report.readable) throw new Error('fixture');
    const receipt = { ...e.receipt, value: { ...e.receipt.value, sent: 346 } };
    const report = {
      ...e.report,
      value: { ...e.report.value, appliedIds: [...FORGE_IDS, 'forge/container:web'] },
    };
    const v = judge(
      { ...e, receipt, report },
      'it says sent 346 but lists 3 ids, 3 distinct',
      'it says applied 3 but lists 4 ids, 3 distinct',
    );
    assert.equal(v.verdict, 'unreadable');
  });
});

describe('verdict: precedence when problems coexist', () => {
  const OLD = '/srv/forge';
  const oldWeb = ctr('forge-web', WEB, { mounts: [{ source: OLD, destination: '/data' }] });
  const startingDb = ctr('forge-db', DB, { health: 'starting' });
  const deadDb = ctr('forge-db', DB, { state: 'dead' });
  const photos = 'photos/dir:/srv/photos';
  const withPhotos = { sent: [...FORGE_IDS, photos], held: [hold(photos)] };
  const table: [string, Scenario, Verdict['verdict'], string[], Verdict['actions']][] = [
    [
      'unrecreated over pending',
      { containers: [oldWeb, startingDb], healthDeadlinePassed: false },
      'unrecreated-volume',
      ['not recreated', 'still starting'],
      ['recreate', 'recheck', 'abort'],
    ],
    [
      'held over unrecreated',
      { ...withPhotos, containers: [oldWeb, ctr('forge-db', DB)] },
      'held',
      ['holds 1 resource of photos', 'not recreated'],
      ['recreate', 'retry', 'abort'],
    ],
    [
      'failed over held',
      { ...withPhotos, containers: [ctr('forge-web', WEB), deadDb] },
      'failed',
      ['forge-db is dead', 'holds 1 resource of photos'],
      ['retry', 'abort'],
    ],
    [
      'failed over unrecreated',
      { containers: [oldWeb, deadDb] },
      'failed',
      ['forge-db is dead', 'forge-web mounts /srv/forge'],
      ['recreate', 'retry', 'abort'],
    ],
    [
      'drift over failed',
      { applied: FORGE_IDS.slice(0, 2), containers: [ctr('forge-web', WEB), deadDb] },
      'drift',
      ['forge/container:db', 'forge-db is dead'],
      ['retry', 'abort'],
    ],
    [
      'drift over everything else',
      {
        ...withPhotos,
        sent: [...withPhotos.sent, 'forge/dir:/x'],
        applied: FORGE_IDS,
        held: [hold(photos), hold('forge/container:cache')],
        taken: [],
        containers: [
          oldWeb,
          deadDb,
          ctr('forge-cache', WEB, 'missing'),
          ctr('forge-queue', DB, { health: 'starting' }),
        ],
        healthDeadlinePassed: false,
      },
      'drift',
      [
        'forge/dir:/x',
        'forge-db is dead',
        'forge1 holds 2 resources',
        'holding back container forge-cache',
        'not recreated',
        'forge-queue is still starting',
      ],
      ['take', 'recreate', 'retry', 'recheck', 'abort'],
    ],
  ];
  for (const [name, scenario, verdict, inOrder, actions] of table) {
    it(name, () => {
      const v = judge(evidence({ oldHostPaths: [OLD], ...scenario }), ...inOrder);
      assert.equal(v.verdict, verdict);
      assert.deepEqual(v.actions, actions);
      const at = inOrder.map((s) => v.reason.indexOf(s));
      assert.deepEqual(
        at,
        [...at].sort((a, b) => a - b),
        `clauses in order of severity: ${v.reason}`,
      );
    });
  }
  it('a container held back by a hold on the dir it mounts is held, not unrecreated (move onto an adopted node)', () => {
    const held = [
      hold(
        'forge/dir:/var/lib/forge',
        'found /var/lib/forge on this adopted node; not run until forge is taken',
      ),
    ];
    const e = evidence({
      oldHostPaths: [OLD],
      applied: FORGE_IDS.slice(1),
      held,
      taken: [],
      containers: [oldWeb],
    });
    const v = judge(e, 'forge is assigned to forge1 but not taken', 'holding back container forge-web');
    assert.equal(v.verdict, 'held');
    assert.deepEqual(v.actions, ['take', 'retry', 'abort']);
    assert.deepEqual([v.details.heldBack, v.details.containers], [['forge-web'], []]);
  });
});

describe('evidence schema', () => {
  it('accepts the fixtures and rejects an unknown container state or an unreadable without error', () => {
    assert.ok(Evidence.safeParse(incident()).success);
    const e = evidence();
    assert.ok(
      !Evidence.safeParse({
        ...e,
        containers: [{ ...ctr('forge-web', WEB), observed: { exists: true, state: 'up' } }],
      }).success,
    );
    assert.ok(!Evidence.safeParse({ ...e, report: { readable: false, source: 'novox' } }).success);
  });
});
