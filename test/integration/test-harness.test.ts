import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Scratch } from '../support/scratch';

const ROOT = join(__dirname, '..', '..');
const HARNESS = join(ROOT, 'scripts', 'run-tests.ts');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'harness');
const run = promisify(execFile);

interface HarnessRun {
  code: number;
  summary: string;
  stdout: string;
  stderr: string;
}

const SLICE = 30;
let slices = 0;

/** A slice of this file's ports for each harness run, so the runs side by side never share a port. */
function portsOfOwn(): string | undefined {
  const range = /^(\d+)-(\d+)$/.exec(process.env.MESH_TEST_PORTS ?? '');
  if (!range) return undefined;
  const [first, last] = [Number(range[1]), Number(range[2])];
  const count = Math.floor((last - first + 1) / SLICE);
  const start = first + (slices++ % count) * SLICE;
  return `${start}-${start + SLICE - 1}`;
}

/**
 * Runs the real harness (its own dev server, bundle and test runner) on fixture files (or with other
 * arguments); the fixtures meet in `fixtureDir`.
 */
async function harness(args: string[], fixtureDir = ''): Promise<HarnessRun> {
  const ports = portsOfOwn();
  // Inside a test file node:test sets NODE_TEST_CONTEXT, and a runner that sees it runs no files.
  const { NODE_TEST_CONTEXT: _insideATest, ...env } = process.env;
  const tsx = pathToFileURL(require.resolve('tsx')).href;
  const argv = ['--import', tsx, HARNESS, ...args.map((a) => (a.endsWith('.ts') ? join(FIXTURES, a) : a))];
  const outcome = await run(process.execPath, argv, {
    cwd: ROOT,
    env: { ...env, MESH_HARNESS_FIXTURE_DIR: fixtureDir, ...(ports ? { MESH_TEST_PORTS: ports } : {}) },
    maxBuffer: 16 * 1024 * 1024,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      stdout: error.stdout,
      stderr: error.stderr,
    }),
  );
  const summary = /^tests: .*$/m.exec(outcome.stdout)?.[0] ?? '(no summary line)';
  return { ...outcome, summary };
}

describe(
  'the test harness reads node:test events and accepts only a run where every test passed',
  { concurrency: true },
  () => {
    it('exits 0 when every test passed', async () => {
      const { code, summary, stdout } = await harness(['passes.ts']);
      assert.equal(code, 0, stdout);
      assert.equal(summary, 'tests: 1 passed, 0 failed, 0 skipped, 0 todo, 0 cancelled', stdout);
    });

    it('exits 1 when a test was skipped', async () => {
      const { code, summary, stdout } = await harness(['skips.ts']);
      assert.equal(code, 1, stdout);
      assert.equal(summary, 'tests: 1 passed, 0 failed, 1 skipped, 0 todo, 0 cancelled', stdout);
    });

    it('exits 1 when a test is todo', async () => {
      const { code, summary, stdout } = await harness(['todo.ts']);
      assert.equal(code, 1, stdout);
      assert.equal(summary, 'tests: 1 passed, 0 failed, 0 skipped, 1 todo, 0 cancelled', stdout);
    });

    it('exits 1 when a test was cancelled', async () => {
      const { code, summary, stdout } = await harness(['cancelled.ts']);
      assert.equal(code, 1, stdout);
      assert.equal(summary, 'tests: 1 passed, 0 failed, 0 skipped, 0 todo, 1 cancelled', stdout);
    });
  },
);

describe(
  'the test harness runs files side by side, each with what it needs for itself',
  { concurrency: true },
  () => {
    const scratch = new Scratch();
    after(() => scratch.cleanup());

    it('runs two files at once on port ranges of their own, then a file that runs alone, then says the times', async () => {
      const dir = await scratch.dir('harness-fixtures-');
      const files = ['side-by-side-a.ts', 'side-by-side-b.ts', 'alone.ts'];
      const { code, summary, stdout } = await harness(['--jobs', '2', ...files], dir);
      assert.equal(code, 0, stdout);
      assert.equal(summary, 'tests: 3 passed, 0 failed, 0 skipped, 0 todo, 0 cancelled', stdout);
      const ranges = await Promise.all(
        (await readdir(dir)).filter((n) => n.startsWith('ports-')).map((n) => readFile(join(dir, n), 'utf8')),
      );
      assert.equal(new Set(ranges).size, 2, `two ranges of their own: ${ranges.join(', ')}`);
      for (const range of ranges) {
        const [first = 0, last = 0] = range.split('-').map(Number);
        assert.ok(first >= 20_000 && last < 32_768, `${range} is below the kernel's ephemeral ports`);
      }
      assert.match(stdout, /^harness: the 3 slowest files:$/m);
      for (const file of files)
        assert.match(stdout, new RegExp(`^ +\\d+\\.\\ds  test/fixtures/harness/${file}$`, 'm'));
      assert.match(stdout, /^harness: 3 test files in \d+\.\ds \(2 at once beside the lab's\)$/m);
    });

    it("gives a file that declares it its own dev server, not the harness's", async () => {
      const dir = await scratch.dir('harness-fixtures-');
      const { code, stdout } = await harness(['own-server.ts'], dir);
      assert.equal(code, 0, stdout);
      const shared = /^harness: Temporal dev server on (\S+) /m.exec(stdout)?.[1];
      const own = await readFile(join(dir, 'own-server'), 'utf8');
      assert.ok(shared && own, stdout);
      assert.notEqual(own, shared);
    });

    it('--under-load keeps one core busy beside the files and ends the busy loop with the run', async () => {
      const dir = await scratch.dir('harness-fixtures-');
      const { code, stdout } = await harness(['--under-load', 'under-load.ts'], dir);
      assert.equal(code, 0, stdout);
      assert.match(stdout, /one core kept busy \(--under-load\)/);
      const hog = Number(await readFile(join(dir, 'hog'), 'utf8'));
      assert.ok(hog > 0, stdout);
      assert.throws(() => process.kill(hog, 0), 'the busy loop ended with the harness');
    });

    it('refuses bad arguments in one sentence with exit 2, having started nothing', async () => {
      const jobs = await harness(['--jobs', '0']);
      assert.equal(jobs.code, 2);
      assert.equal(jobs.stderr, '--jobs needs a whole number from 1 to 8 (got 0), e.g. --jobs 4.\n');
      assert.equal(jobs.stdout, '');
      const unknown = await harness(['--fast']);
      assert.equal(unknown.code, 2);
      assert.match(
        unknown.stderr,
        /^Unknown option --fast: use --jobs <n>, --under-load, or name test files/,
      );
    });
  },
);
