import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { watchPause } from '../../workflows/runbook/watch';
import { pathUserLook, pathUsersChange, type PathUserSeen } from '../../workflows/verdict/path-user-look';

const user = (name: string, state = 'running') =>
  pathUserLook({ name, id: `${name}0123456789abcdef`, state, source: '/srv/forge' } as PathUserSeen);

describe('what a waiting approval watches on the old path, and how often a watched wait looks', () => {
  it('names a user that came, then one that went, and nothing when they are the same in any order', () => {
    const [a, b] = [user('a'), user('b')];
    assert.equal(user('a'), 'container a (a0123456789a) mounts /srv/forge');
    assert.equal(pathUsersChange([a], [a, b]), `now ${b}`);
    assert.equal(pathUsersChange([a, b], [a]), `no longer ${b}`);
    assert.equal(pathUsersChange([a, b], [b, a]), undefined);
    assert.equal(pathUsersChange([], []), undefined);
  });

  it('a user whose state changed is no change: it uses the path whether it runs or not', () => {
    assert.equal(pathUsersChange([user('a')], [user('a', 'exited')]), undefined);
  });

  it('looks at once for four changes, then pauses a minute, doubling up to half an hour', () => {
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5, 6, 9, 10, 40].map(watchPause),
      [0, 0, 0, 0, 60_000, 120_000, 240_000, 1_800_000, 1_800_000, 1_800_000],
    );
  });
});
