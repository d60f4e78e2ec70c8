import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { lstat, mkdir, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { LocalMesh } from '../../mesh/local';
import { FAILURE } from '../../workflows/contracts';
import { dataActivitiesFor } from '../support/data-activities';
import { Scratch } from '../support/scratch';

async function refusal(run: Promise<unknown>, type: string = FAILURE.preflightFailed): Promise<string> {
  try {
    await run;
  } catch (error) {
    assert.ok(error instanceof ApplicationFailure, `an ApplicationFailure, not ${String(error)}`);
    assert.deepEqual([error.type, error.nonRetryable], [type, true]);
    return error.message;
  }
  assert.fail('expected a refusal');
}

describe('preflight and removal of data paths', () => {
  const scratch = new Scratch();
  const node = 'n1';
  let data: ReturnType<typeof dataActivitiesFor>;
  let hostRoot = '';
  const at = (path: string) => join(hostRoot, path);
  const preflight = (from: string, to: string) => data.preflightMove({ node, from, to });

  before(async () => {
    hostRoot = await scratch.dir('mesh-data-preflight-');
    const mesh = new LocalMesh({ stateDir: join(hostRoot, 'state') });
    await mesh.createNode(node, { adopted: false, hostRoot });
    data = dataActivitiesFor(mesh, hostRoot);
    await mkdir(at('srv/forge/repos'), { recursive: true });
    await writeFile(at('srv/forge/repos/a'), 'a'.repeat(1000));
    await writeFile(at('srv/forge/b'), 'b'.repeat(24));
    await symlink('repos/a', at('srv/forge/latest'));
    await mkdir(at('var/lib/busy'), { recursive: true });
    await writeFile(at('var/lib/busy/old.db'), '');
    await mkdir(at('var/lib/empty'), { recursive: true });
    await writeFile(at('srv/file'), '');
    await symlink('forge', at('srv/forge-link'));
  });
  after(() => scratch.cleanup());

  it("reports the source's size when the move can start", async () => {
    const size = { files: 2, bytes: 1024, directories: 1, symlinks: 1 };
    assert.deepEqual(await preflight('/srv/forge/', '/var/lib/forge'), {
      from: '/srv/forge',
      to: '/var/lib/forge',
      ...size,
    });
    assert.deepEqual(await preflight('/srv/forge', '/var/lib/empty'), {
      from: '/srv/forge',
      to: '/var/lib/empty',
      ...size,
    });
  });

  it('refuses bad paths before touching anything, each with its own sentence', async () => {
    const cases: [string, string, string][] = [
      [
        'srv/forge',
        '/var/lib/forge',
        'The source path "srv/forge" is relative; give an absolute path such as /srv/forge.',
      ],
      [
        '/',
        '/var/lib/forge',
        'The source path is / (the whole file system); give the data directory itself.',
      ],
      [
        '/srv/forge',
        '/etc/forge',
        'The target path /etc/forge is a system path (under /etc); data directories belong below /srv, /var/lib, /opt or /home.',
      ],
      [
        '/srv/forge',
        '/srv/forge/next',
        'The target path /srv/forge/next lies inside the source path /srv/forge; the copy would copy into itself.',
      ],
      ['/srv/missing', '/var/lib/forge', 'The source path /srv/missing does not exist on node n1.'],
      ['/srv/file', '/var/lib/forge', 'The source path /srv/file is not a directory on node n1.'],
      [
        '/srv/forge-link',
        '/var/lib/forge',
        'The source path /srv/forge-link is a symbolic link on node n1; give the directory it points to.',
      ],
      [
        '/srv/forge',
        '/var/lib/busy',
        'The target path /var/lib/busy is not empty on node n1 (1 entry, e.g. old.db); empty it or choose another path.',
      ],
      [
        '/srv/forge',
        '/srv/file',
        'The target path /srv/file exists on node n1 and is not a directory; remove it or choose another path.',
      ],
      [
        '/srv/forge',
        '/srv/file/sub',
        'The target path /srv/file/sub cannot be created on node n1: /srv/file is not a directory.',
      ],
    ];
    for (const [from, to, message] of cases)
      assert.equal(await refusal(preflight(from, to)), message, `${from} → ${to}`);
    await assert.rejects(lstat(at('var/lib/forge')), 'nothing was created');
  });

  it('refuses when the target file system lacks room, or the source holds special files', async () => {
    await mkdir(at('srv/huge'));
    await truncate(at('srv/huge/sparse.img'), 15 * 2 ** 40).catch(async () => {
      await writeFile(at('srv/huge/sparse.img'), '');
      await truncate(at('srv/huge/sparse.img'), 15 * 2 ** 40);
    });
    assert.match(
      await refusal(preflight('/srv/huge', '/var/lib/huge')),
      /^The file system of \/var\/lib\/huge on node n1 has [\d.]+ GiB free but \/srv\/huge needs 15360\.00 GiB \(plus 0\.06 GiB to spare\)\.$/,
    );
    await mkdir(at('srv/pipes'));
    execFileSync('mkfifo', [at('srv/pipes/fifo')]);
    assert.equal(
      await refusal(preflight('/srv/pipes', '/var/lib/pipes')),
      'The source path /srv/pipes holds 1 socket(s), FIFO(s) or device(s), e.g. fifo, that the copy does not move; remove them first.',
    );
  });

  it('refuses an unknown node without retrying', async () => {
    await refusal(
      data.preflightMove({ node: 'ghost', from: '/srv/forge', to: '/var/lib/forge' }),
      'MeshRefused',
    );
  });

  it('removes a node path, idempotently, and refuses system and shared paths', async () => {
    await mkdir(at('var/lib/old/deep/er'), { recursive: true });
    await writeFile(at('var/lib/old/deep/er/x'), 'x');
    await data.removeTree({ node, path: '/var/lib/old' });
    await assert.rejects(lstat(at('var/lib/old')));
    await data.removeTree({ node, path: '/var/lib/old' });
    const refused: [string, string][] = [
      ['/', 'The path to remove is / (the whole file system); give the data directory itself.'],
      [
        '/etc/x',
        'The path to remove /etc/x is a system path (under /etc); data directories belong below /srv, /var/lib, /opt or /home.',
      ],
      [
        '/srv/',
        "The path to remove /srv holds other services' data too; give the service's own directory below it.",
      ],
      ['srv/forge', 'The path to remove "srv/forge" is relative; give an absolute path such as /srv/forge.'],
    ];
    for (const [path, message] of refused)
      assert.equal(await refusal(data.removeTree({ node, path })), message);
    await rm(at('srv/huge'), { recursive: true });
    assert.ok((await lstat(at('srv/forge/repos/a'))).isFile(), 'refusals removed nothing');
  });
});
