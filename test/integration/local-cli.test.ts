import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { hostPathOnNode } from '../../docker/placement';
import { NodeState } from '../../mesh/schemas';
import { LocalWorld, threeContainerModule } from '../support/local-world';

const MESH = join(__dirname, '..', '..', 'bin', 'mesh.js');
const run = promisify(execFile);

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

describe('mesh local CLI', () => {
  let world: LocalWorld;
  let node: string;
  const mesh = async (...args: string[]): Promise<Outcome> => {
    try {
      const { stdout, stderr } = await run(MESH, ['local', '--state-dir', world.stateDir, ...args]);
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };

  before(async () => {
    world = await LocalWorld.create();
    node = world.nodeName();
  });
  after(() => world.cleanup());

  it('creates an adopted node, defines a module from YAML, and shows the node’s own holds after a push', async () => {
    assert.equal((await mesh('node', 'create', node, '--adopted')).code, 0);
    const { hostRoot } = await world.mesh.nodeState(node);
    await mkdir(hostPathOnNode(hostRoot, '/var/lib/route-proxy/ca'), { recursive: true });
    const file = join(world.stateDir, 'route-proxy.yaml');
    await writeFile(file, stringify(threeContainerModule('route-proxy', world.imageName('route-proxy'))));
    assert.equal((await mesh('module', 'define', file)).code, 0);
    assert.equal((await mesh('assign', 'route-proxy', node)).code, 0);

    const pushed = await mesh('push', node, '--wait', '--json');
    assert.equal(pushed.code, 1, 'a push with holds does not exit 0');
    const { receipt, report } = JSON.parse(pushed.stdout) as {
      receipt: { sent: number };
      report: { applied: number };
    };
    assert.equal(receipt.sent, 6);
    assert.equal(report.applied, 4);

    const shown = await mesh('node', 'show', node, '--json');
    const state = NodeState.parse(JSON.parse(shown.stdout));
    assert.deepEqual(
      state.lastApply?.held.map((h) => h.resource),
      ['route-proxy/dir:/var/lib/route-proxy/ca', 'route-proxy/container:edge'],
    );
    const human = await mesh('node', 'show', node);
    assert.match(
      human.stdout,
      /found \/var\/lib\/route-proxy\/ca on this adopted node; not touched until route-proxy is taken/,
    );
    assert.match(human.stdout, /would mount \/var\/lib\/route-proxy\/ca, found on this adopted node/);
  });

  it('answers bad input with one sentence, a suggestion and exit code 2', async () => {
    const invalid = await mesh('node', 'show', 'Not_A_Name');
    assert.equal(invalid.code, 2);
    assert.match(invalid.stderr, /node "Not_A_Name" is invalid/);
    const unknown = await mesh('take', 'route-proxy', 'nowhere');
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /There is no node "nowhere"/);
    assert.equal((await mesh('assign', 'route-proxy')).code, 2);
    assert.equal((await mesh('module', 'define', join(world.stateDir, 'missing.yaml'))).code, 2);
  });
});
