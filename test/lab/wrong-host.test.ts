import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { Lab } from '../support/lab';
import { edgeFlipArgs, labStatusWhen, seedEdges } from '../support/lab-stories';

/**
 * A story on a task queue of its own, with its own workers: a stopped poller stays listed by Temporal for
 * about a minute, and the wrong worker of this story must not look like a second host to the next one.
 */
describe('a node worker proves its host, on the production-shaped lab (a real engine and disk per host)', () => {
  let lab: Lab;
  before(async () => {
    lab = await Lab.story();
  });

  it('a worker started with --node novox on forge1 polls novox too: preflight waits naming both hosts, and nothing changes on either', async () => {
    await seedEdges(lab, ['novox', 'forge1']);
    const taskQueue = `lab-wrong-host-${randomBytes(3).toString('hex')}`;
    const [novox, forge1] = [lab.host('novox'), lab.host('forge1')];
    // The unit copied from novox to forge1: novox's engine is "the local one", forge1's.
    const engines = join(await mkdtemp(join(tmpdir(), 'wrong-unit-')), 'engines.json');
    await writeFile(engines, JSON.stringify({ nodes: { novox: { socket: forge1.dockerSocket } } }));
    const workers = [
      await lab.worker({ config: lab.mesh.runbookConfig, taskQueue }),
      await lab.worker(
        { host: 'novox', config: lab.mesh.nodeConfigs.novox ?? '', taskQueue },
        '--node',
        'novox',
        '--host-root',
        novox.root,
        '--nodes-only',
      ),
      await lab.worker(
        {
          host: 'forge1',
          config: lab.mesh.nodeConfigs.forge1 ?? '',
          taskQueue,
          env: { MESH_DOCKER_ENDPOINTS: engines },
        },
        '--node',
        'novox',
        '--host-root',
        forge1.root,
        '--nodes-only',
      ),
    ];
    const { client, connection } = await lab.client();
    try {
      const started = await lab.cliOn(
        taskQueue,
        'runbook',
        'start',
        'edge-flip',
        ...edgeFlipArgs(lab, 'novox'),
        '--yes',
        '--detach',
      );
      assert.equal(started.code, 0, started.stderr);
      const handle = client.workflow.getHandle('runbook-novox');
      const waiting = await labStatusWhen(handle, (s) => s.waiting?.gate === 'preflight');
      const reason = waiting.waiting?.reason ?? '';
      assert.match(reason, /Two hosts poll node novox's queue/);
      const hosts = reason.match(/\[novox on engine [^\]]+\]/g) ?? [];
      assert.equal(new Set(hosts).size, 2, `both hosts named: ${reason}`);
      const abort = await lab.cliOn(taskQueue, 'runbook', 'abort', 'novox');
      assert.ok([0, 5].includes(abort.code), abort.stderr);
      const ended = await labStatusWhen(handle, (s) => s.phase !== 'running' && s.phase !== 'waiting');
      assert.equal(ended.phase, 'aborted', ended.outcome);
    } finally {
      for (const worker of workers) worker.stop();
      await connection.close();
    }
    for (const host of ['novox', 'forge1']) {
      const caddy = await lab.engine(host).listByLabels({ 'org.meshctl.module': 'caddy' });
      assert.equal(caddy[0]?.State, 'running', `caddy still runs on ${host}`);
      assert.deepEqual(await lab.engine(host).listByLabels({ 'org.meshctl.module': 'route-proxy' }), []);
    }
  });
});
