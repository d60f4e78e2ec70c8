import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Dockerode from 'dockerode';
import { DockerEngine, LABEL } from '../../docker/engine';
import type { Placement } from '../../docker/placement';
import type { ContainerSpec } from '../../mesh/schemas';
import { LocalMesh, runNodeAgent } from '../../mesh/local';
import { LocalWorld, threeContainerModule } from '../support/local-world';

const MODULE = 'route-proxy';

/**
 * The real engine, with a gate in front of container creation: each call waits until `expected` calls are
 * in flight together (or until a deadline, then goes on), and the most seen at once is recorded.
 */
class TogetherEngine extends DockerEngine {
  inFlight = 0;
  mostAtOnce = 0;
  private arrived: (() => void)[] = [];

  constructor(private readonly expected: number) {
    super();
  }

  override async createAndStart(
    spec: ContainerSpec,
    placement: Placement,
  ): Promise<Dockerode.ContainerInspectInfo> {
    this.inFlight += 1;
    this.mostAtOnce = Math.max(this.mostAtOnce, this.inFlight);
    try {
      await this.allArrived();
      return await super.createAndStart(spec, placement);
    } finally {
      this.inFlight -= 1;
    }
  }

  private allArrived(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, 60_000);
      this.arrived.push(() => {
        clearTimeout(timer);
        resolve();
      });
      if (this.inFlight >= this.expected) for (const release of this.arrived.splice(0)) release();
    });
  }
}

describe('local mesh: a push starts its containers together, not one after another', () => {
  let world: LocalWorld;
  let node: string;

  before(async () => {
    world = await LocalWorld.create((stateDir) => new LocalMesh({ stateDir, startAgent: () => undefined }));
    node = world.nodeName();
    await world.mesh.createNode(node, { adopted: false });
    await world.mesh.defineModule(threeContainerModule(MODULE, world.imageName(MODULE)));
    await world.mesh.assign(MODULE, node);
  });
  after(() => world.cleanup());

  it('the three containers of a module are created at once, and each is reported applied', async () => {
    await world.mesh.push(node);
    const engine = new TogetherEngine(3);
    const [report] = await runNodeAgent(world.mesh.layout.stateDir, node, { engine });

    assert.equal(engine.mostAtOnce, 3, 'three creations in flight together');
    assert.ok(report);
    assert.deepEqual(report.failed, []);
    assert.deepEqual(
      report.appliedIds.filter((id) => id.includes('container:')),
      ['edge', 'acme', 'logs'].map((c) => `${MODULE}/container:${c}`),
      'in the module spec order, whatever order they finished in',
    );
    const running = await world.engine.listByLabels({ [LABEL.node]: node });
    assert.equal(running.filter((c) => c.State === 'running').length, 3);
  });
});
