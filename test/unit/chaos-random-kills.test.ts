import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { randomKills, type KillAt } from '../../scripts/chaos/worker-kills';

const POSITIONS: KillAt[] = [
  { at: 'scheduled', activity: 'runbookPolicy', occurrence: 1 },
  { at: 'scheduled', activity: 'pushNode', occurrence: 1 },
  { at: 'wait', gate: 'gate-apply' },
  { at: 'scheduled', activity: 'takeModule', occurrence: 1 },
  { at: 'scheduled', activity: 'pushNode', occurrence: 2 },
  { at: 'wait', gate: 'approve-stop-predecessor' },
];

describe('a random-kill run kills after random positions of its undisturbed run, never on a clock', () => {
  it('picks distinct scheduling positions, in the run’s order, each at most 1 s after its position', () => {
    const order = POSITIONS.flatMap((p) => (p.at === 'scheduled' ? [`${p.activity}#${p.occurrence}`] : []));
    for (let round = 0; round < 200; round++) {
      const kills = randomKills(POSITIONS, 3);
      const names = kills.map((k) => `${k.activity}#${k.occurrence}`);
      assert.equal(new Set(names).size, 3, names.join(', '));
      const indices = names.map((n) => order.indexOf(n));
      assert.ok(
        indices.every((i) => i >= 0),
        `${names.join(', ')} are scheduling positions`,
      );
      assert.deepEqual(
        indices,
        [...indices].sort((a, b) => a - b),
        'in the order the run passes them',
      );
      assert.ok(kills.every((k) => k.afterMs >= 0 && k.afterMs <= 1_000));
    }
  });

  it('kills at every position when the run has fewer than asked', () => {
    const two = POSITIONS.slice(0, 2);
    assert.deepEqual(
      randomKills(two, 3).map((k) => k.activity),
      ['runbookPolicy', 'pushNode'],
    );
  });
});
