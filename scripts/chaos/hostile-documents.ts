import type { ApplyReport, NodeState } from '../../mesh/schemas';

/**
 * Hostile and malformed documents from mesh, generated from a real one: each mutation turns the JSON of a
 * node's apply report or node state into text a broken or lying node might write, and names the verdict a
 * gate must reach on it. Deterministic (a seeded generator), so a failing case can be found again by name.
 */
export type Expected = 'unreadable' | 'held' | 'not-ok';

/** The documents as the hostile node writes them; one left out is sent as it truly is. */
export interface HostileTexts {
  report?: string;
  nodeState?: string;
}

export interface Mutation {
  name: string;
  expected: Expected;
  /** The hostile documents, made from the true report and state. */
  texts(report: ApplyReport, state: NodeState): HostileTexts;
}

/** A small seeded generator (mulberry32): the same cases on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WRONG_VALUES: [string, unknown][] = [
  ['null', null],
  ['a number', 7],
  ['a negative number', -3],
  ['a fraction', 2.5],
  ['a string', 'seven'],
  ['an empty string', ''],
  ['true', true],
  ['an array', [1, 'x']],
  ['an object', { nested: true }],
];

const CONTROL_REASONS = [
  'assigned but not taken\u001b[2J\u001b[H',
  'held\r\nFAKE: all resources applied',
  'nul\u0000inside',
  'bell\u0007\u0007',
  'right-to-left \u202e override',
  'csi \u009b31m',
  'del \u007f',
  'tab\tand\u000bvertical',
];

const HUGE_COUNTS = ['1e12', '9007199254740993', '1e308', '1e400', '-1e400', '18446744073709551616'];
const NEGATIVE_COUNTS = ['-1', '-0.5', '-9007199254740991', '-1e9'];

function json(value: unknown): string {
  return JSON.stringify(value);
}

/** The report with one field replaced by raw JSON text (e.g. `1e400`, which JSON.stringify cannot write). */
function withRawField(document: object, field: string, raw: string): string {
  const marker = '"__chaos_raw__"';
  return json({ ...document, [field]: '__chaos_raw__' }).replace(marker, raw);
}

function heldReport(report: ApplyReport, reason: string): ApplyReport {
  const [first, ...rest] = report.appliedIds;
  if (first === undefined) return report;
  const module = first.split('/')[0] ?? 'x';
  return { ...report, applied: rest.length, appliedIds: rest, held: [{ resource: first, module, reason }] };
}

/** The apply report as the node's state carries it too, so the two documents agree (as a real node's do). */
function stateWith(state: NodeState, report: ApplyReport): NodeState {
  return { ...state, lastApply: report, holds: report.held };
}

export function reportMutations(): Mutation[] {
  const out: Mutation[] = [];
  type Text = (report: ApplyReport, state: NodeState) => string;
  const report = (name: string, expected: Expected, text: Text) =>
    out.push({ name: `report: ${name}`, expected, texts: (r, s) => ({ report: text(r, s) }) });
  const state = (name: string, expected: Expected, text: Text) =>
    out.push({ name: `node state: ${name}`, expected, texts: (r, s) => ({ nodeState: text(r, s) }) });
  /** A node that holds something, telling it the same in both documents (as a real node does). */
  const holding = (name: string, expected: Expected, held: (report: ApplyReport) => ApplyReport) =>
    out.push({
      name: `both: ${name}`,
      expected,
      texts: (r, s) => {
        const lying = held(r);
        return { report: json(lying), nodeState: json(stateWith(s, lying)) };
      },
    });
  const rand = random(11);

  for (let i = 0; i < 250; i++) {
    const cut = rand();
    report(`truncated at ${(cut * 100).toFixed(1)}%`, 'unreadable', (r) => {
      const text = json(r);
      return text.slice(0, Math.floor(cut * (text.length - 1)));
    });
    state(`truncated at ${(cut * 100).toFixed(1)}%`, 'unreadable', (_r, s) => {
      const text = json(s);
      return text.slice(0, Math.floor(cut * (text.length - 1)));
    });
  }
  for (const text of [
    '',
    ' ',
    'null',
    '[]',
    '"report"',
    '0',
    '{}',
    '\u0000\u0000',
    '<html>502 Bad Gateway</html>',
  ]) {
    report(`the whole file is ${json(text)}`, 'unreadable', () => text);
    state(`the whole file is ${json(text)}`, 'unreadable', () => text);
  }
  const reportFields = ['pushId', 'node', 'applied', 'appliedIds', 'held', 'failed', 'finishedAt'];
  for (const field of reportFields) {
    for (const [what, value] of WRONG_VALUES) {
      report(`${field} is ${what}`, 'unreadable', (r) => json({ ...r, [field]: value }));
      state(`lastApply.${field} is ${what}`, 'unreadable', (r, s) =>
        json({ ...s, lastApply: { ...r, [field]: value } }),
      );
    }
    report(`${field} missing`, 'unreadable', (r) => json({ ...r, [field]: undefined }));
  }
  const stateFields = ['node', 'adopted', 'hostRoot', 'assigned', 'taken', 'holds', 'lastApply'];
  for (const field of stateFields) {
    for (const [what, value] of WRONG_VALUES) {
      if (field === 'lastApply' && value === null) continue; // a node that never applied: a true answer
      if (field === 'adopted' && typeof value === 'boolean') continue; // either is a true answer
      state(`${field} is ${what}`, 'unreadable', (_r, s) => json({ ...s, [field]: value }));
    }
    state(`${field} missing`, 'unreadable', (_r, s) => json({ ...s, [field]: undefined }));
  }
  for (const raw of NEGATIVE_COUNTS)
    report(`applied is ${raw}`, 'unreadable', (r) => withRawField(r, 'applied', raw));
  for (const raw of HUGE_COUNTS)
    report(`applied is ${raw}`, 'unreadable', (r) => withRawField(r, 'applied', raw));
  for (const delta of [1, 2, 100, -1])
    report(`applied counts ${delta > 0 ? `${delta} more` : 'one fewer'} than its ids`, 'unreadable', (r) =>
      json({ ...r, applied: r.applied + delta }),
    );
  for (const field of ['extra', 'sent', 'appliedCount', '__proto__', 'constructor', 'status']) {
    report(`an unknown field ${field}`, 'unreadable', (r) =>
      json({ ...r, [field]: 'ok' }).replace('"__proto__"', '"__proto__"'),
    );
    state(`an unknown field ${field}`, 'unreadable', (_r, s) => json({ ...s, [field]: 'ok' }));
    report(`an unknown field ${field} in a held entry`, 'unreadable', (r) => {
      const held = heldReport(r, 'assigned but not taken');
      return json({ ...held, held: held.held.map((h) => ({ ...h, [field]: 1 })) });
    });
  }
  report('a duplicated applied id (count = list)', 'unreadable', (r) =>
    json({ ...r, applied: r.applied + 1, appliedIds: [...r.appliedIds, r.appliedIds[0]] }),
  );
  report('a duplicated applied id (count = distinct)', 'unreadable', (r) =>
    json({ ...r, appliedIds: [...r.appliedIds.slice(1), r.appliedIds[1] ?? r.appliedIds[0]] }),
  );
  report('every applied id the same', 'unreadable', (r) =>
    json({ ...r, appliedIds: r.appliedIds.map(() => r.appliedIds[0]) }),
  );
  holding('a duplicated held entry', 'held', (r) => {
    const held = heldReport(r, 'assigned but not taken');
    return { ...held, held: [...held.held, ...held.held] };
  });
  for (const older of [1, 2, 5]) {
    report(`the report of a push ${older} older`, 'unreadable', (r) =>
      json({ ...r, pushId: olderPush(r.pushId, older) }),
    );
    state(`the last apply of a push ${older} older`, 'unreadable', (r, s) =>
      json({ ...s, lastApply: { ...r, pushId: olderPush(r.pushId, older) } }),
    );
  }
  report('the report of another node', 'unreadable', (r) => json({ ...r, node: `${r.node}-other` }));
  state('the state of another node', 'unreadable', (_r, s) => json({ ...s, node: `${s.node}-other` }));
  report('an applied id never sent', 'not-ok', (r) =>
    json({ ...r, applied: r.applied, appliedIds: [...r.appliedIds.slice(1), 'intruder/container:x'] }),
  );
  for (const reason of CONTROL_REASONS) {
    holding(`a held reason ${json(reason)}`, 'held', (r) => heldReport(r, reason));
    report(`a hold only the report tells, reason ${json(reason)}`, 'unreadable', (r) =>
      json(heldReport(r, reason)),
    );
    report(`a resource id with ${json(reason.slice(-6))}`, 'unreadable', (r) =>
      json({ ...r, appliedIds: [...r.appliedIds.slice(1), `${r.appliedIds[0]}${reason}`] }),
    );
  }
  for (const invalid of ['\ud800', '\udfff'])
    report(`a lone surrogate in the push id`, 'unreadable', (r) =>
      json({ ...r, pushId: `${r.pushId}${invalid}` }),
    );
  for (let i = 0; i < 230; i++) {
    const [f1, f2] = [
      reportFields[Math.floor(rand() * reportFields.length)],
      reportFields[Math.floor(rand() * reportFields.length)],
    ];
    const [w1, v1] = WRONG_VALUES[Math.floor(rand() * WRONG_VALUES.length)] ?? ['null', null];
    const [w2, v2] = WRONG_VALUES[Math.floor(rand() * WRONG_VALUES.length)] ?? ['null', null];
    if (f1 === undefined || f2 === undefined) continue;
    report(`#${i}: ${f1} is ${w1} and ${f2} is ${w2}`, 'unreadable', (r) =>
      json({ ...r, [f1]: v1, [f2]: v2 }),
    );
  }
  holding('10 MB: a held reason of 10 MB', 'held', (r) => heldReport(r, 'x'.repeat(10 << 20)));
  report('10 MB: 200,000 applied ids never sent', 'not-ok', (r) => {
    const ids = Array.from({ length: 200_000 }, (_, i) =>
      `intruder/dir:/var/lib/intruder/${i}`.padEnd(50, 'x'),
    );
    return json({ ...r, applied: ids.length, appliedIds: ids });
  });
  report('10 MB: an unknown field of 10 MB', 'unreadable', (r) =>
    json({ ...r, padding: 'p'.repeat(10 << 20) }),
  );
  holding('10 MB: 100,000 held entries, too many to carry as evidence', 'unreadable', (r) => {
    const held = heldReport(r, 'assigned but not taken');
    const first = held.held[0];
    if (!first) return held;
    const many = Array.from({ length: 100_000 }, (_, i) => ({
      ...first,
      reason: `hold ${i} `.padEnd(100, '.'),
    }));
    return { ...held, held: many };
  });
  state('10 MB: 100,000 holds its report does not tell', 'unreadable', (r, s) => {
    const held = heldReport(r, 'assigned but not taken');
    const holds = Array.from({ length: 100_000 }, (_, i) => ({
      ...held.held[0],
      reason: `hold ${i} `.padEnd(100, '.'),
    }));
    return json({ ...s, lastApply: held, holds });
  });
  state('10 MB: nested 10,000 deep', 'unreadable', (_r, s) =>
    json(s).replace('"adopted":', `"adopted":${'['.repeat(10_000)}${']'.repeat(10_000)},"x":`),
  );
  return out;
}

function olderPush(pushId: string, by: number): string {
  const match = /^(.*-)(\d+)$/.exec(pushId);
  if (!match) return `${pushId}-old`;
  return `${match[1]}${Math.max(0, Number(match[2]) - by)}`;
}
