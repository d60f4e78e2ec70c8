import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { Lab } from '../support/lab';
import { servedWith, STAGING_ONLY } from '../support/lab-dark-edge';
import { applyModule, edgeFlipArgs, labStatusWhen, seedEdges } from '../support/lab-stories';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const ctl = (...args: string[]) => run('bash', [join(ROOT, 'scripts', 'lab', 'ctl.sh'), ...args]);

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
      const stoppedAt = Date.parse(done.steps.find((s) => s.name === 'stop-predecessor')?.startedAt ?? '');
      t.diagnostic(
        `names dark for ${lit - failedAt} ms after the failed probe, at most ${lit - stoppedAt} ms from the stop (default timings), with meshd killed`,
      );
      assert.match(
        done.steps.find((s) => s.name === 'probe-public')?.note ?? '',
        /nothing took http:\/\/\S+ within 3 s/,
        'probe-public gave up once nothing took the port, not at its deadline',
      );
    } finally {
      await connection.close();
    }
    const successor = await lab.engine('novox').listByLabels({ 'org.meshctl.module': 'route-proxy' });
    assert.deepEqual(successor, [], 'the successor came off once the controller answered');
  });
});
