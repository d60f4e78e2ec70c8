import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, beforeEach, describe, it } from 'node:test';

interface BuildOutputs {
  SOURCES: string[];
  SETTINGS: string[];
  STAMP: string;
  WORKFLOW_BUNDLE: string;
  compiledIsFresh(root: string): boolean;
  workflowBundleIsFresh(root: string): boolean;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const built = require('../../bin/compiled.js') as BuildOutputs;

const root = mkdtempSync(join(tmpdir(), 'compiled-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** Writes `path` under the package root with its modification time `secondsAgo` in the past. */
function file(path: string, secondsAgo: number): void {
  const full = join(root, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, '');
  const at = Date.now() / 1000 - secondsAgo;
  utimesSync(full, at, at);
}

describe('bin/compiled.js: when dist/ may run in place of the sources', () => {
  beforeEach(() => {
    rmSync(root, { recursive: true, force: true });
    built.SETTINGS.forEach((setting) => file(setting, 100));
    built.SOURCES.forEach((dir) => file(join(dir, 'index.ts'), 100));
    file(join('workflows', 'runbook', 'deep.ts'), 100);
    file(built.STAMP, 10);
    file(built.WORKFLOW_BUNDLE, 20);
  });

  it('runs the build when it is newer than every source and setting', () => {
    assert.equal(built.compiledIsFresh(root), true);
    assert.equal(built.workflowBundleIsFresh(root), true);
  });

  it('runs the sources once any TypeScript file, however deep, is newer than the build', () => {
    file(join('workflows', 'runbook', 'deep.ts'), 15);
    assert.equal(built.compiledIsFresh(root), true);
    assert.equal(built.workflowBundleIsFresh(root), false);
    file(join('workflows', 'runbook', 'deep.ts'), 0);
    assert.equal(built.compiledIsFresh(root), false);
  });

  it('runs the sources after a change to the build settings or the locked packages', () => {
    file('package-lock.json', 0);
    assert.equal(built.compiledIsFresh(root), false);
    assert.equal(built.workflowBundleIsFresh(root), false);
  });

  it('ignores files that are not TypeScript sources', () => {
    file(join('cli', 'notes.md'), 0);
    file(join('test', 'later.ts'), 0);
    assert.equal(built.compiledIsFresh(root), true);
  });

  it('runs the sources when there is no build, or a source directory is missing', () => {
    rmSync(join(root, built.WORKFLOW_BUNDLE));
    assert.equal(built.workflowBundleIsFresh(root), false);
    assert.equal(built.compiledIsFresh(root), true);
    rmSync(join(root, 'docker'), { recursive: true });
    assert.equal(built.compiledIsFresh(root), false);
  });
});
