import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ContainerMemory } from '../../workflows/runbook/memory';
import type { ContainerEvidence } from '../../workflows/verdict';
import { inspectContainer } from '../../workflows/verdict/containers';

/** A running forge container as a real mesh names it: the same Docker name on every node. */
function forge(id: string, restartCount: number): ContainerEvidence {
  return {
    module: 'forge',
    container: 'web',
    name: 'forge-web',
    desiredMounts: [],
    observed: {
      exists: true,
      state: 'running',
      health: 'none',
      restartCount,
      restartCountStable: true,
      mounts: [],
      id,
    },
  };
}

const judge = (c: ContainerEvidence, memory: ContainerMemory, node: string) =>
  inspectContainer(c, {
    healthDeadlinePassed: true,
    oldHostPaths: [],
    firstSeen: memory.firstSeenOn(node),
    compareSpec: true,
  });

describe('restart memory is per node and container', () => {
  it('a data-path move over two nodes whose containers share a Docker name judges each node against its own first sighting', () => {
    const memory = new ContainerMemory();
    memory.remember('forge1', [forge('aaa', 0)], '2026-12-01T10:00:00.000Z');
    memory.remember('forge2', [forge('bbb', 4)], '2026-12-01T10:00:01.000Z');
    // forge1's container restarted once since the runbook first saw it; forge2's did not.
    assert.deepEqual(judge(forge('aaa', 1), memory, 'forge1')?.failures, [
      'restarted 1 time since the runbook first saw it at 10:00:00 UTC',
    ]);
    assert.equal(judge(forge('bbb', 4), memory, 'forge2'), undefined);
    memory.remember('forge1', [forge('aaa', 1)], '2026-12-01T10:01:00.000Z');
    memory.remember('forge2', [forge('bbb', 4)], '2026-12-01T10:01:01.000Z');
    assert.equal(
      judge(forge('aaa', 1), memory, 'forge1')?.restartedSince,
      1,
      'still counted from the first look',
    );

    memory.acceptRestarts();
    assert.equal(
      judge(forge('aaa', 1), memory, 'forge1'),
      undefined,
      'accepted: they count from the last look on',
    );
    assert.equal(judge(forge('bbb', 4), memory, 'forge2'), undefined);
  });

  it("an edge flip's successor counts its restarts from its creation: a crash loop begun before the first look fails the next", () => {
    const memory = new ContainerMemory(true);
    memory.remember('novox', [forge('aaa', 2)], '2026-12-01T10:00:00.000Z');
    assert.deepEqual(judge(forge('aaa', 2), memory, 'novox')?.failures, [
      "restarted 2 times since the runbook's push created it",
    ]);
    // A container the runbook did not create counts from the first look, so the same evidence passes.
    const fromFirstLook = new ContainerMemory();
    fromFirstLook.remember('novox', [forge('aaa', 2)], '2026-12-01T10:00:00.000Z');
    assert.equal(judge(forge('aaa', 2), fromFirstLook, 'novox'), undefined);
    // Accepted restarts count from the last look on, as for any container.
    memory.acceptRestarts();
    assert.equal(judge(forge('aaa', 2), memory, 'novox'), undefined);
    assert.equal(judge(forge('aaa', 3), memory, 'novox')?.restartedSince, 1);
  });

  it('remembers the containers as last judged, one look each, for a waiting gate to watch', () => {
    const memory = new ContainerMemory();
    assert.deepEqual(memory.lastJudged('novox'), []);
    memory.remember('novox', [forge('aaaaaaaaaaaaaaaa', 1)], '2026-12-01T10:00:00.000Z');
    assert.deepEqual(memory.lastJudged('novox'), [
      'forge-web (aaaaaaaaaaaa): running, health none, restarted 1',
    ]);
    assert.deepEqual(memory.lastJudged('forge1'), []);
  });
});
