import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { putCliOnPath } from '../../scripts/cli-on-path';
import { Scratch } from '../support/scratch';

const CLI = join(__dirname, '..', '..', 'bin', 'mesh.js');
const FOREIGN = '#!/bin/sh\necho "the real mesh controller"\n';

describe('the bootstrap puts mesh and mesh-runbook on a login shell’s PATH', () => {
  const scratch = new Scratch();
  after(() => scratch.cleanup());

  /** A login PATH of `dirs` (made), and a link directory among them. */
  async function machine(...names: string[]) {
    const root = await scratch.dir('mesh-on-path-');
    const dirs = Object.fromEntries(names.map((name) => [name, join(root, name)]));
    for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
    return { root, dirs, path: () => Object.values(dirs) };
  }

  it('links both names, then says they are up to date', async () => {
    const { dirs, path } = await machine('usr-local-bin', 'usr-bin');
    const setting = { cli: CLI, loginPath: path, linkDirs: [dirs['usr-local-bin']!] };
    const mesh = join(dirs['usr-local-bin']!, 'mesh');
    const plugin = join(dirs['usr-local-bin']!, 'mesh-runbook');
    assert.equal(putCliOnPath(setting), `linked ${mesh}, ${plugin}`);
    assert.equal(realpathSync(mesh), realpathSync(CLI));
    assert.equal(realpathSync(plugin), realpathSync(CLI));
    assert.equal(putCliOnPath(setting), `up to date (${mesh}, ${plugin})`);
  });

  it('never overwrites nor shadows a mesh that is not this CLI, and says so; mesh-runbook is linked', async () => {
    const { dirs, path } = await machine('usr-local-bin', 'usr-bin');
    const controller = join(dirs['usr-bin']!, 'mesh');
    writeFileSync(controller, FOREIGN, { mode: 0o755 });
    const setting = { cli: CLI, loginPath: path, linkDirs: [dirs['usr-local-bin']!] };
    assert.equal(
      putCliOnPath(setting),
      `linked ${join(dirs['usr-local-bin']!, 'mesh-runbook')}; ${controller} is another program, left alone: this CLI is mesh-runbook here`,
    );
    assert.equal(
      existsSync(join(dirs['usr-local-bin']!, 'mesh')),
      false,
      'no link in front of the controller',
    );
    const inPlace = join(dirs['usr-local-bin']!, 'mesh');
    writeFileSync(inPlace, FOREIGN, { mode: 0o755 });
    assert.match(putCliOnPath(setting), new RegExp(`${inPlace} is another program, left alone`));
    assert.equal(readFileSync(inPlace, 'utf8'), FOREIGN);
  });

  it('relinks a link to another checkout of this CLI, or to one that is gone', async () => {
    const { root, dirs, path } = await machine('bin');
    const other = join(root, 'other-checkout');
    mkdirSync(join(other, 'bin'), { recursive: true });
    writeFileSync(join(other, 'package.json'), readFileSync(join(__dirname, '..', '..', 'package.json')));
    writeFileSync(join(other, 'bin', 'mesh.js'), '#!/usr/bin/env node\n', { mode: 0o755 });
    symlinkSync(join(other, 'bin', 'mesh.js'), join(dirs.bin!, 'mesh'));
    symlinkSync(join(root, 'removed-checkout', 'bin', 'mesh.js'), join(dirs.bin!, 'mesh-runbook'));
    const said = putCliOnPath({ cli: CLI, loginPath: path, linkDirs: [dirs.bin!] });
    assert.equal(
      said,
      `relinked ${join(dirs.bin!, 'mesh')} (was ${join(other, 'bin', 'mesh.js')}); relinked ${join(dirs.bin!, 'mesh-runbook')} (was ${join(root, 'removed-checkout', 'bin', 'mesh.js')}, gone)`,
    );
    assert.equal(readlinkSync(join(dirs.bin!, 'mesh')), CLI);
    assert.equal(readlinkSync(join(dirs.bin!, 'mesh-runbook')), CLI);
  });

  it('makes ~/.local/bin when it is the only place, as Debian’s ~/.profile puts it on the PATH once it exists', async () => {
    const { root, dirs } = await machine('usr-bin');
    const local = join(root, 'home', '.local', 'bin');
    const loginPath = () => [dirs['usr-bin']!, ...(existsSync(local) ? [local] : [])];
    const readOnly = join(root, 'not-writable');
    const said = putCliOnPath({ cli: CLI, loginPath, linkDirs: [readOnly, local] });
    assert.equal(said, `linked ${join(local, 'mesh')}, ${join(local, 'mesh-runbook')}`);
  });

  it('says where nothing could be linked, and what to run instead', async () => {
    const { root, path } = await machine('usr-bin');
    const said = putCliOnPath({ cli: CLI, loginPath: path, linkDirs: [join(root, 'elsewhere', 'bin')] });
    assert.match(said, /no writable directory on a login shell's PATH for mesh \(run \.\/bin\/mesh\.js\)/);
  });
});
