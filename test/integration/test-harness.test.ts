import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '..', '..');
const HARNESS = join(ROOT, 'scripts', 'run-tests.ts');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'harness');
const run = promisify(execFile);

interface HarnessRun {
  code: number;
  summary: string;
  stdout: string;
}

/** Runs the real harness (its own dev server, bundle and test runner) on one fixture file. */
async function harness(fixture: string): Promise<HarnessRun> {
  // Inside a test file node:test sets NODE_TEST_CONTEXT, and a runner that sees it runs no files.
  const { NODE_TEST_CONTEXT: _insideATest, ...env } = process.env;
  const tsx = pathToFileURL(require.resolve('tsx')).href;
  const args = ['--import', tsx, HARNESS, join(FIXTURES, fixture)];
  const outcome = await run(process.execPath, args, { cwd: ROOT, env, maxBuffer: 16 * 1024 * 1024 }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );
  const summary = /^tests: .*$/m.exec(outcome.stdout)?.[0] ?? '(no summary line)';
  return { ...outcome, summary };
}

describe('the test harness reads node:test events and accepts only a run where every test passed', () => {
  it('exits 0 when every test passed', async () => {
    const { code, summary, stdout } = await harness('passes.ts');
    assert.equal(code, 0, stdout);
    assert.equal(summary, 'tests: 1 passed, 0 failed, 0 skipped, 0 todo, 0 cancelled', stdout);
  });

  it('exits 1 when a test was skipped', async () => {
    const { code, summary, stdout } = await harness('skips.ts');
    assert.equal(code, 1, stdout);
    assert.equal(summary, 'tests: 1 passed, 0 failed, 1 skipped, 0 todo, 0 cancelled', stdout);
  });

  it('exits 1 when a test is todo', async () => {
    const { code, summary, stdout } = await harness('todo.ts');
    assert.equal(code, 1, stdout);
    assert.equal(summary, 'tests: 1 passed, 0 failed, 0 skipped, 1 todo, 0 cancelled', stdout);
  });

  it('exits 1 when a test was cancelled', async () => {
    const { code, summary, stdout } = await harness('cancelled.ts');
    assert.equal(code, 1, stdout);
    assert.equal(summary, 'tests: 1 passed, 0 failed, 0 skipped, 0 todo, 1 cancelled', stdout);
  });
});
