import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { hostRootFromMesh } from '../../activities';
import { createDockerActivities, DOCKER_FAILURE } from '../../activities/docker';
import { BASE_IMAGE, DockerEngine } from '../../docker/engine';
import { LocalMesh } from '../../mesh/local';
import { Scratch } from '../support/scratch';

describe('Docker activities on a node whose engine does not answer (its socket is gone: dockerd stopped)', () => {
  const scratch = new Scratch();
  const node = `t${randomBytes(4).toString('hex')}`;
  const target = { node, module: 'pair' };
  let socket = '';
  let activities: ReturnType<typeof createDockerActivities>;

  before(async () => {
    const dir = await scratch.dir('engine-unanswered-');
    socket = join(dir, 'docker.sock');
    const stopped = new DockerEngine({ socketPath: socket });
    const mesh = new LocalMesh({
      stateDir: join(dir, 'state'),
      engine: stopped,
      startAgent: () => undefined,
    });
    await mesh.createNode(node, { adopted: false, hostRoot: join(dir, 'root') });
    await mesh.defineModule({
      module: 'pair',
      containers: ['one', 'two'].map((name) => ({ name, image: BASE_IMAGE, command: ['sleep', '600'] })),
    });
    activities = createDockerActivities({
      mesh,
      dockerFor: () => stopped,
      hostRootOf: hostRootFromMesh(mesh),
    });
  });

  after(() => scratch.cleanup());

  /** The failure says, in one sentence, whose engine is silent, where, and what to check before a retry. */
  function unanswered(error: unknown): boolean {
    assert.ok(error instanceof ApplicationFailure, `an ApplicationFailure, not ${String(error)}`);
    assert.equal(error.type, DOCKER_FAILURE.engineUnanswered);
    assert.equal(error.nonRetryable, false, 'retried: the engine may be back in a moment');
    assert.equal(
      error.message,
      `The Docker engine of node ${node} does not answer (connect ENOENT ${socket}): it is stopped or ` +
        'restarting; once it answers, check that its containers run again (a daemon restart stops those ' +
        'without a restart policy), then recheck or retry.',
    );
    return true;
  }

  it('observing the module fails with that sentence, not a bare socket error', async () => {
    await assert.rejects(
      activities.observeModuleContainers({
        ...target,
        stabilityWindowMs: 1_000,
        healthDeadlineMs: 5_000,
        waitForStability: true,
      }),
      unanswered,
    );
  });

  it('inspecting, stopping and starting the module fail with it too', async () => {
    await assert.rejects(activities.inspectModuleContainers({ ...target, stabilityWindowMs: 0 }), unanswered);
    await assert.rejects(activities.stopModuleContainers(target), unanswered);
    await assert.rejects(activities.startModuleContainers(target), unanswered);
  });
});
