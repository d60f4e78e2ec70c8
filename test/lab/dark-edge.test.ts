import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { getWithHost } from '../../activities/probes/http-get';
import type { ModuleSpecInput } from '../../mesh/schemas';
import { Lab } from '../support/lab';
import {
  applyModule,
  edgeFlipArgs,
  labStatusWhen,
  PUBLIC_NAMES,
  PUBLIC_PORT,
  ROUTE_PROXY,
  seedEdges,
} from '../support/lab-stories';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const ctl = (...args: string[]) => run('bash', [join(ROOT, 'scripts', 'lab', 'ctl.sh'), ...args]);

/** route-proxy that answers on its staging port but never takes the public port: the names go dark. */
const STAGING_ONLY: ModuleSpecInput = {
  ...ROUTE_PROXY,
  containers: (ROUTE_PROXY.containers ?? []).map((c) =>
    c.name === 'edge'
      ? {
          ...c,
          command: [
            'sh',
            '-c',
            'mkdir -p /www && echo "served by route-proxy on $MESHCTL_NODE." > /www/index.html && exec httpd -f -p 0.0.0.0:8081 -h /www',
          ],
        }
      : c,
  ),
};

/** The first moment the node's public address answers with `marker`, polling every 50 ms. */
async function servedWith(
  lab: Lab,
  node: string,
  marker: string,
  timeoutMs: number,
): Promise<number | undefined> {
  const address = new URL(`http://${lab.host(node).ip}:${PUBLIC_PORT}`);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const answer = await getWithHost(address, PUBLIC_NAMES[0] ?? '', 1_000, true);
    if ('body' in answer && answer.body.includes(marker)) return Date.now();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

describe('a dark edge is lit first, on the production-shaped lab with its controller killed', () => {
  let lab: Lab;
  before(async () => {
    lab = await Lab.story();
  });

  it('the controller is down when the public names go dark: the predecessor serves again before mesh answers', async (t) => {
    await seedEdges(lab, ['novox']);
    await applyModule(lab, STAGING_ONLY);
    const started = await lab.cli(
      'runbook',
      'start',
      'edge-flip',
      ...edgeFlipArgs(lab, 'novox'),
      '--yes',
      '--detach',
    );
    assert.equal(started.code, 0, started.stderr);
    const { client, connection } = await lab.client();
    try {
      const handle = client.workflow.getHandle('runbook-novox');
      await labStatusWhen(handle, (s) => s.waiting?.gate === 'approve-stop-predecessor');
      assert.equal(
        (await lab.cli('runbook', 'approve', 'novox', 'approve-stop-predecessor', '--as', 'carol')).code,
        0,
      );
      await labStatusWhen(handle, (s) =>
        s.steps.some((x) => x.name === 'probe-public' && x.state === 'running'),
      );
      await ctl('kill', 'meshd');
      let lit: number | undefined;
      try {
        lit = await servedWith(lab, 'novox', 'served by caddy on novox', 90_000);
      } finally {
        await ctl('up');
      }
      assert.ok(lit !== undefined, 'the predecessor served again while meshd was down');
      const done = await labStatusWhen(
        handle,
        (s) => s.phase !== 'running' && s.phase !== 'waiting',
        600_000,
      );
      assert.equal(done.phase, 'rolled-back', done.outcome);
      const failedAt = Date.parse(done.steps.find((s) => s.name === 'probe-public')?.endedAt ?? '');
      t.diagnostic(`names dark for ${lit - failedAt} ms after the failed probe, with meshd killed`);
    } finally {
      await connection.close();
    }
    const successor = await lab.engine('novox').listByLabels({ 'org.meshctl.module': 'route-proxy' });
    assert.deepEqual(successor, [], 'the successor came off once the controller answered');
  });
});
