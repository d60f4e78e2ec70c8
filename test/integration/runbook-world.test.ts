import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DockerEngine, LABEL } from '../../docker/engine';
import { edgeFlip } from '../../workflows';
import { exists } from '../support/data-move';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { runbookWorld } from '../support/runbook-world';
import { statusWhen, waitingAt } from '../support/runbooks';
import { connectHarnessClient } from '../support/temporal';

describe('the runbook world a test opens cleans up after it, even when the test fails', () => {
  it('a test that throws while its runbook waits leaves no open runbook, container or scratch dir', async () => {
    const left: { node?: string; stateDir?: string; workflowId?: string } = {};
    await assert.rejects(async () => {
      await using world = await runbookWorld();
      const input = await seedEdgeFlip(world, { leftovers: true });
      const handle = await world.start(edgeFlip, input);
      await statusWhen(handle, waitingAt('gate-apply'));
      Object.assign(left, { node: input.node, stateDir: world.stateDir, workflowId: handle.workflowId });
      throw new Error('the test failed here');
    }, /^Error: the test failed here$/);

    const { node, stateDir, workflowId } = left;
    assert.ok(node && stateDir && workflowId, 'the runbook was waiting before the test failed');
    const { client, connection } = await connectHarnessClient();
    try {
      const described = await client.workflow.getHandle(workflowId).describe();
      assert.equal(described.status.name, 'TERMINATED');
    } finally {
      await connection.close();
    }
    assert.deepEqual(await new DockerEngine().listByLabels({ [LABEL.node]: node }), [], 'no container left');
    assert.equal(await exists(stateDir), false, 'the mesh state dir is gone');
  });
});
