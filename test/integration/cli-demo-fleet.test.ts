import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { fleetDemoNodes } from '../../cli/runbook/demo/fleet';
import { removeNodeContainers } from '../../docker/cleanup';
import { DockerEngine, LABEL } from '../../docker/engine';
import { runbookWorkflowId } from '../../workflows/contracts';
import { fleetWorkflowId } from '../../workflows/fleet/contracts';
import { Scratch } from '../support/scratch';
import { stepLinesShownAgain } from '../support/step-lines';

const MESH = join(__dirname, '..', '..', 'bin', 'mesh.js');
const run = promisify(execFile);

describe('mesh runbook demo fleet --yes (its own dev server, real Docker)', () => {
  const scratch = new Scratch();
  const held = `fleet${randomBytes(3).toString('hex')}`;
  const nodes = fleetDemoNodes(held);

  after(async () => {
    await removeNodeContainers(nodes);
    await scratch.cleanup();
  });

  it('flips four nodes one at a time: the canary first, a pause at the held node with its reasons, take, the rest', async () => {
    const stateDir = await scratch.dir('mesh-demo-fleet-');
    const started = Date.now();
    const { stdout } = await run(
      MESH,
      ['runbook', 'demo', 'fleet', '--yes', '--node', held, '--state-dir', stateDir],
      { env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 64 * 1024 * 1024 },
    );
    process.stderr.write(`demo fleet --yes took ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    const order = nodes.slice(1).join(' | ');
    assert.match(
      stdout,
      new RegExp(`canary ${nodes[0]}, then one at a time: ${order.replaceAll('|', '\\|')}`),
    );
    assert.match(stdout, new RegExp(`waiting at ${held} \\(held\\)`));
    for (const dir of ['www', 'ca', 'dns'])
      assert.match(stdout, new RegExp(`${held}: .*found /var/lib/route-proxy/${dir} on this adopted node`));
    assert.match(stdout, new RegExp(`decides on ${runbookWorkflowId(held)} at gate-apply: take`));
    // The default approvals: the canary's, one for the waves, and the held node's own (it was not clean).
    assert.match(stdout, /rules: approvals canary-then-waves/);
    assert.match(stdout, /demo: decisions here are unsigned: the demo's worker lists no signers/);
    const approvals = [...stdout.matchAll(/decides on (\S+) at (approve-\S+): approve/g)].map(
      (m) => `${m[1]} ${m[2]}`,
    );
    assert.deepEqual(approvals, [
      `${runbookWorkflowId(nodes[0]!)} approve-stop-predecessor`,
      `${fleetWorkflowId('route-proxy')} approve-waves`,
      `${runbookWorkflowId(held)} approve-stop-predecessor`,
    ]);
    // Nobody after the held node started before it was taken.
    const takeAt = stdout.indexOf(`decides on ${runbookWorkflowId(held)} at gate-apply: take`);
    const lastStarts = new RegExp(`${nodes[3]} +(running|waiting)`).exec(stdout)?.index ?? -1;
    assert.ok(lastStarts > takeAt, 'the last node starts after take');
    assert.match(stdout, /4 of 4 completed/);
    assert.deepEqual(stepLinesShownAgain(stdout), [], 'after each decision the view goes on, never replays');
    for (const node of nodes)
      assert.match(stdout, new RegExp(`demo: ${node}: .* status 200, served by route-proxy`));

    // It ends by saying what it leaves running, and the command that removes it.
    const engine = new DockerEngine();
    const running = async () =>
      (await Promise.all(nodes.map((node) => engine.listByLabels({ [LABEL.node]: node })))).flat();
    const left = await running();
    assert.equal(left.length, 12, 'route-proxy: three containers on each of the four nodes');
    const said = new RegExp(
      `demo: left behind on the local Docker engine: 12 running container\\(s\\) of ${[...nodes].sort().join(', ')} \\(`,
    );
    assert.match(stdout, said);
    for (const container of left)
      assert.ok(stdout.includes(container.Names[0]!.slice(1)), container.Names[0]);
    assert.match(
      stdout,
      /demo: the dev server and worker have stopped; the server database and the local mesh stay in /,
    );
    const reset = /remove them all with `mesh runbook demo (--reset --state-dir \S+)`/.exec(stdout);
    assert.ok(reset, stdout.slice(-2_000));
    const removed = await run(MESH, ['runbook', 'demo', ...(reset[1] ?? '').split(' ')], {
      env: { ...process.env, NO_COLOR: '1' },
    });
    assert.match(removed.stdout, new RegExp(`demo: removed 12 container\\(s\\) of .* and ${stateDir}`));
    assert.deepEqual(await running(), []);
    assert.equal(existsSync(stateDir), false, 'the state directory is gone');
  });
});
