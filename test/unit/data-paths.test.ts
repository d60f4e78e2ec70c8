import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  checkMovePaths,
  checkNodePath,
  MovePathError,
  type MovePathProblem,
} from '../../activities/data/paths';

function refusal(run: () => unknown): MovePathError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof MovePathError, `a MovePathError, not ${String(error)}`);
    return error;
  }
  assert.fail('expected a refusal');
}

function refuses(from: string, to: string, problem: MovePathProblem, message: string): void {
  const error = refusal(() => checkMovePaths(from, to));
  assert.equal(error.problem, problem);
  assert.equal(error.message, message);
}

describe('data move paths', () => {
  it('normalises good paths', () => {
    assert.deepEqual(checkMovePaths('/srv//forge/', '/var/lib/./forge'), {
      from: '/srv/forge',
      to: '/var/lib/forge',
    });
    assert.deepEqual(checkMovePaths('/srv/forge', '/srv/forge2'), { from: '/srv/forge', to: '/srv/forge2' });
    assert.deepEqual(checkMovePaths('/home/git/data', '/opt/forge'), {
      from: '/home/git/data',
      to: '/opt/forge',
    });
  });

  it('refuses relative paths, naming which one', () => {
    refuses(
      'srv/forge',
      '/var/lib/forge',
      'relative',
      'The source path "srv/forge" is relative; give an absolute path such as /srv/forge.',
    );
    refuses(
      '/srv/forge',
      './forge',
      'relative',
      'The target path "./forge" is relative; give an absolute path such as /srv/forge.',
    );
  });

  it('refuses a name or a path longer than the system allows, showing only its start', () => {
    const longName = `/srv/${'x'.repeat(2000)}`;
    refuses(
      '/srv/forge',
      longName,
      'too-long',
      `The target path /srv/${'x'.repeat(35)}… has a name of 2,000 bytes; Linux allows a name at most 255.`,
    );
    const deep = `/srv${`/${'a'.repeat(200)}`.repeat(21)}`;
    refuses(
      deep,
      '/var/lib/forge',
      'too-long',
      `The source path /srv/${'a'.repeat(35)}… is 4,225 bytes long; Linux allows a path at most 4,095.`,
    );
    const multiByte = `/srv/${'é'.repeat(128)}`;
    assert.equal(refusal(() => checkNodePath('target path', multiByte)).problem, 'too-long');
    const atLimits = `/srv${`/${'a'.repeat(255)}`.repeat(16)}`.slice(0, 4095);
    assert.equal(checkNodePath('target path', atLimits), atLimits);
  });

  it('refuses .. segments', () => {
    refuses(
      '/srv/../etc',
      '/var/lib/forge',
      'dot-dot',
      'The source path /srv/../etc contains "..": give the path without it.',
    );
  });

  it('refuses / itself, however it is written', () => {
    refuses(
      '/',
      '/var/lib/forge',
      'root',
      'The source path is / (the whole file system); give the data directory itself.',
    );
    refuses(
      '/srv/forge',
      '//',
      'root',
      'The target path is / (the whole file system); give the data directory itself.',
    );
  });

  it('refuses system paths and anything below them', () => {
    refuses(
      '/etc',
      '/var/lib/forge',
      'system',
      'The source path /etc is a system path (/etc); data directories belong below /srv, /var/lib, /opt or /home.',
    );
    refuses(
      '/srv/forge',
      '/etc/forge',
      'system',
      'The target path /etc/forge is a system path (under /etc); data directories belong below /srv, /var/lib, /opt or /home.',
    );
    for (const path of [
      '/usr/local/x',
      '/lib64',
      '/boot/x',
      '/proc/1',
      '/run/forge',
      '/var/run/x',
      '/root/data',
      '/var/lib/docker/volumes/v',
    ]) {
      assert.equal(refusal(() => checkNodePath('target path', path)).problem, 'system', path);
    }
    assert.equal(checkNodePath('target path', '/library/forge'), '/library/forge');
    assert.equal(checkNodePath('target path', '/etcetera'), '/etcetera');
  });

  it('refuses shared parents themselves but not their children', () => {
    refuses(
      '/srv',
      '/var/lib/forge',
      'shared',
      "The source path /srv holds other services' data too; give the service's own directory below it.",
    );
    refuses(
      '/srv/forge',
      '/var/lib/',
      'shared',
      "The target path /var/lib holds other services' data too; give the service's own directory below it.",
    );
    assert.equal(checkNodePath('path', '/tmp/x'), '/tmp/x');
  });

  it('refuses the same path twice', () => {
    refuses(
      '/srv/forge',
      '/srv/forge/',
      'same',
      'The source and target paths are the same (/srv/forge); nothing would move.',
    );
  });

  it('refuses a target inside the source', () => {
    refuses(
      '/srv/forge',
      '/srv/forge/new',
      'nested',
      'The target path /srv/forge/new lies inside the source path /srv/forge; the copy would copy into itself.',
    );
  });

  it('refuses a source inside the target', () => {
    refuses(
      '/srv/data/forge',
      '/srv/data',
      'nested',
      'The source path /srv/data/forge lies inside the target path /srv/data; the target must be a separate, empty directory.',
    );
  });
});
