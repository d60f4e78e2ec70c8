import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { watchUntilChanged } from '../../activities/docker/watch-loop';
import { BASE_IMAGE, DockerEngine } from '../../docker/engine';

/**
 * A waiting approval's watch names the Docker event behind the change it saw. One engine serves several
 * nodes (the local mesh, a shared machine), and another node's container created between the change and the
 * look was named instead ("Docker reported create of t9d847e47.caddy.edge", for a new user of A on another
 * node). Real Docker: the events come from the engine's own stream.
 */
describe("a watch names the event of the container that changed (real Docker's events)", () => {
  it("another container's event between the change and the look is not the one named", async () => {
    const engine = new DockerEngine();
    const run = randomUUID().slice(0, 8);
    const label = { 'test.watch-loop': run };
    const user = `watch-${run}-user`;
    const other = `watch-${run}-other-node`;
    let changed = false;
    let subscribed!: () => void;
    const firstLook = new Promise<void>((resolve) => (subscribed = resolve));
    const outcome = watchUntilChanged(
      engine,
      { event: ['create'], label: [`test.watch-loop=${run}`] },
      // Its first look comes once it listens to the events. The change is seen only by a look that starts
      // after both containers were made: one woken by the other container's event, the last on the engine.
      async () => {
        subscribed();
        return changed ? `now container ${user} (0123456789ab) mounts /srv/forge` : undefined;
      },
      60_000,
      'the test',
    );
    const made = [];
    await firstLook;
    try {
      for (const name of [user, other])
        made.push(await engine.docker.createContainer({ name, Image: BASE_IMAGE, Labels: label }));
      changed = true;
      const seen = await outcome;
      assert.ok(seen.changed);
      assert.equal(seen.event?.name, user, JSON.stringify(seen.event));
      assert.equal(seen.event?.action, 'create');
    } finally {
      await Promise.all(made.map((c) => c.remove({ force: true })));
    }
  });
});
