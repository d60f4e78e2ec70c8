import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { hostRootFromMesh } from '../../activities';
import { createDockerActivities } from '../../activities/docker';
import { BASE_IMAGE, DockerEngine, LABEL } from '../../docker/engine';
import { LocalMesh } from '../../mesh/local';
import { FAILURE } from '../../workflows/contracts';
import { dataActivitiesFor } from '../support/data-activities';
import { Scratch } from '../support/scratch';

/** PID 1 ignores SIGTERM unless it traps it; this one stops at once. */
const SLEEPER = ['sh', '-c', 'trap "exit 0" TERM; sleep 600 & wait'];

async function refusal(run: Promise<unknown>, type: string): Promise<ApplicationFailure> {
  try {
    await run;
  } catch (error) {
    assert.ok(error instanceof ApplicationFailure, `an ApplicationFailure, not ${String(error)}`);
    assert.deepEqual([error.type, error.nonRetryable], [type, true]);
    return error;
  }
  assert.fail('expected a refusal');
}

describe('nothing else uses A: containers mounting a path, and removal that looks again', () => {
  const scratch = new Scratch();
  const engine = new DockerEngine();
  const node = `t${randomBytes(4).toString('hex')}`;
  const made: string[] = [];
  let mesh: LocalMesh;
  let hostRoot = '';
  /** A directory beside the node's host root: what a link out of the node would reach. */
  let outsideRoot = '';
  let [other, orphan] = ['', ''];
  const at = (path: string) => join(hostRoot, path);

  /** A container as anyone might have made it: `labels` decide whether mesh would call it its own. */
  async function container(suffix: string, binds: string[], labels: Record<string, string>, start = true) {
    const created = await engine.docker.createContainer({
      name: `${node}-${suffix}`,
      Image: BASE_IMAGE,
      Cmd: SLEEPER,
      Labels: labels,
      HostConfig: { Binds: binds },
    });
    made.push(created.id);
    if (start) await created.start();
    return created.id;
  }

  before(async () => {
    const dir = await scratch.dir('data-path-users-');
    hostRoot = join(dir, 'root');
    outsideRoot = join(dir, 'elsewhere');
    mesh = new LocalMesh({ stateDir: join(dir, 'state'), engine, startAgent: () => undefined });
    await mesh.createNode(node, { adopted: false, hostRoot });
    await mkdir(at('srv/app/sub'), { recursive: true });
    await mkdir(at('srv/app-cache'), { recursive: true });
    await writeFile(at('srv/app/sub/data.db'), 'precious');
    await symlink('app', at('srv/app-link'));
    other = await container('other', [`${at('srv/app/sub')}:/data`], {
      [LABEL.node]: node,
      [LABEL.module]: 'other',
      [LABEL.container]: 'web',
    });
    orphan = await container('orphan', [`${at('srv/app-link/sub')}:/data:ro`], {}, false);
    await container('sibling', [`${at('srv/app-cache')}:/cache`], { [LABEL.node]: node });
  });
  after(async () => {
    for (const id of made) await engine.remove(id);
    await scratch.cleanup();
  });

  it("finds another module's container and an unlabelled one mounting a subdir of A, in any state, also through a symlink", async () => {
    const { containersUsingPath } = createDockerActivities({
      mesh,
      dockerFor: () => engine,
      hostRootOf: hostRootFromMesh(mesh),
    });
    const expected = [
      { name: `${node}-orphan`, id: orphan, state: 'created', source: '/srv/app-link/sub' },
      {
        name: `${node}-other`,
        id: other,
        state: 'running',
        module: 'other',
        node,
        source: '/srv/app/sub',
      },
    ];
    assert.deepEqual(await containersUsingPath({ node, path: '/srv/app' }), expected);
    assert.deepEqual(
      await containersUsingPath({ node, path: '/srv/app-link' }),
      expected,
      'A named by a symlink',
    );
    assert.deepEqual(
      (await containersUsingPath({ node, path: '/srv/app-cache' })).map((u) => u.name),
      [`${node}-sibling`],
    );
  });

  it('refuses to remove A while a container mounts it, deleting nothing, and removes it once none does', async () => {
    const data = dataActivitiesFor(mesh, hostRoot);
    const error = await refusal(data.removeTree({ node, path: '/srv/app', refuseIfUsed: true }), 'PathInUse');
    assert.equal(
      error.message,
      `/srv/app on node ${node} is still mounted by 2 container(s): ${node}-orphan (no mesh module, created), ${node}-other (other, running); nothing was removed. Remove those containers or their mounts first.`,
    );
    assert.equal(await readFile(at('srv/app/sub/data.db'), 'utf8'), 'precious');
    for (const id of made.splice(0)) await engine.remove(id);
    await data.removeTree({ node, path: '/srv/app', refuseIfUsed: true });
    await assert.rejects(lstat(at('srv/app')), 'A is gone');
  });

  // Every path here stays inside the test's scratch dir: were the refusal ever gone, a removal that
  // followed a link to this machine's own /etc would delete it. "/etc" is the node's, under its host root.
  it("refuses to remove a path a symlink aims at the node's /etc or outside the node's host root", async () => {
    const data = dataActivitiesFor(mesh, hostRoot);
    await mkdir(at('etc'), { recursive: true });
    await writeFile(at('etc/passwd'), 'root:x:0:0');
    await mkdir(join(outsideRoot, 'tree'), { recursive: true });
    await writeFile(join(outsideRoot, 'tree/file'), 'not the node');
    await mkdir(at('srv/evil'), { recursive: true });
    await symlink('../../etc', at('srv/evil/system'));
    await symlink(outsideRoot, at('srv/evil/outside'));
    const system = await refusal(
      data.removeTree({ node, path: '/srv/evil/system/passwd' }),
      FAILURE.preflightFailed,
    );
    assert.equal(
      system.message,
      `The path to remove /srv/evil/system/passwd on node ${node} resolves to /etc/passwd through the symbolic link /srv/evil/system → ../../etc, a system path (under /etc); give the data directory itself.`,
    );
    const outside = await refusal(
      data.removeTree({ node, path: '/srv/evil/outside/tree' }),
      FAILURE.preflightFailed,
    );
    assert.equal(
      outside.message,
      `The path to remove /srv/evil/outside/tree on node ${node} resolves to ${outsideRoot}/tree, outside the node's host root ${hostRoot} through the symbolic link /srv/evil/outside → ${outsideRoot}; give the directory itself.`,
    );
    assert.equal(await readFile(at('etc/passwd'), 'utf8'), 'root:x:0:0');
    assert.equal(await readFile(join(outsideRoot, 'tree/file'), 'utf8'), 'not the node');
  });
});
