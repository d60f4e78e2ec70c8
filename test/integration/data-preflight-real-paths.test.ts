import assert from 'node:assert/strict';
import { lstat, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { LocalMesh } from '../../mesh/local';
import { FAILURE } from '../../workflows/contracts';
import { dataActivitiesFor } from '../support/data-activities';
import { Scratch } from '../support/scratch';

describe('preflight judges A and B where they really are, after every symlink up their trees', () => {
  const scratch = new Scratch();
  const node = 'n1';
  let data: ReturnType<typeof dataActivitiesFor>;
  let hostRoot = '';
  const at = (path: string) => join(hostRoot, path);

  async function refused(from: string, to: string): Promise<string> {
    try {
      await data.preflightMove({ node, from, to });
    } catch (error) {
      assert.ok(error instanceof ApplicationFailure, `an ApplicationFailure, not ${String(error)}`);
      assert.deepEqual([error.type, error.nonRetryable], [FAILURE.preflightFailed, true]);
      return error.message;
    }
    assert.fail(`expected preflight of ${from} → ${to} to refuse`);
  }

  before(async () => {
    hostRoot = await scratch.dir('mesh-data-real-paths-');
    const mesh = new LocalMesh({ stateDir: join(hostRoot, 'state') });
    await mesh.createNode(node, { adopted: false, hostRoot });
    data = dataActivitiesFor(mesh, hostRoot);
    await mkdir(at('srv/forge'), { recursive: true });
    await writeFile(at('srv/forge/repo'), 'git');
    await mkdir(at('var/lib'), { recursive: true });
    await mkdir(at('etc/app'), { recursive: true });
    await mkdir(at('srv/data/forge'), { recursive: true });
    await mkdir(at('opt'), { recursive: true });
  });
  after(() => scratch.cleanup());

  it('refuses a B that a symlink in its parent chain puts inside A, naming the link, and creates nothing', async () => {
    await mkdir(at('srv/forge/inner'));
    await symlink('../srv/forge', at('var/nest'));
    assert.equal(
      await refused('/srv/forge', '/var/nest/inner/forge'),
      'The target path /var/nest/inner/forge on node n1 resolves to /srv/forge/inner/forge through the symbolic link /var/nest → ../srv/forge, inside the source path /srv/forge (/srv/forge); the copy would copy into itself.',
    );
    await assert.rejects(lstat(at('srv/forge/inner/forge')), 'nothing was created inside A');
  });

  it('refuses an A that lies inside B once B is resolved', async () => {
    await symlink('../srv/data', at('opt/all'));
    assert.equal(
      await refused('/srv/data/forge', '/opt/all'),
      'The source path /srv/data/forge on node n1 resolves to /srv/data/forge through the symbolic link /opt/all → ../srv/data, inside the target path /opt/all (/srv/data); the target must be a separate, empty directory.',
    );
  });

  it('refuses an A or B that resolves into a system tree or a shared parent', async () => {
    await symlink('../etc', at('srv/sys'));
    await symlink('../srv', at('opt/every'));
    assert.equal(
      await refused('/srv/sys/app', '/var/lib/app'),
      'The source path /srv/sys/app on node n1 resolves to /etc/app through the symbolic link /srv/sys → ../etc, a system path (under /etc); give the data directory itself.',
    );
    assert.equal(
      await refused('/srv/forge', '/opt/every'),
      "The target path /opt/every on node n1 resolves to /srv through the symbolic link /opt/every → ../srv, a directory of other services' data too; give the data directory itself.",
    );
  });

  it('lets a move start whose symlinks keep A and B apart', async () => {
    await symlink('data', at('srv/via'));
    const size = await data.preflightMove({ node, from: '/srv/via/forge', to: '/var/lib/forge' });
    assert.deepEqual([size.from, size.to, size.files], ['/srv/via/forge', '/var/lib/forge', 0]);
  });
});
