import { join, relative } from 'node:path';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { freeLocalPort } from '../worker/ports';
import { writeWorkflowBundle } from '../worker/workflow-bundle';
import { allPassed, runTestFiles, summaryLine } from './node-test-run';
import { ephemeralDevServer } from '../worker/ephemeral-dev-server';

/**
 * The test harness: one real Temporal dev server for the whole run, then node's test runner over every
 * test file (unit first), then a one-line summary counted from the runner's events. It exits 1 unless tests
 * ran and every one passed: a skipped, todo or cancelled test fails the run too. Integration tests find the
 * server in TEMPORAL_ADDRESS, its Web UI in TEMPORAL_UI_URL.
 */

const root = join(__dirname, '..');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return testFiles(path);
      return entry.name.endsWith('.test.ts') ? [path] : [];
    })
    .sort();
}

/**
 * The dev server, on free ports. Picking a free port and binding it are two steps, so on a busy machine
 * another process can take the port between them: try again on fresh ports.
 */
async function startDevServer(attempts = 3) {
  for (let attempt = 1; ; attempt++) {
    const uiPort = await freeLocalPort();
    try {
      const temporal = await TestWorkflowEnvironment.createLocal({
        server: ephemeralDevServer({ uiPort }),
      });
      return { temporal, uiPort };
    } catch (error) {
      if (attempt >= attempts) throw error;
      process.stderr.write(`harness: the dev server did not start (${String(error).slice(0, 120)}); again\n`);
    }
  }
}

async function main(): Promise<number> {
  const selected = process.argv.slice(2);
  const files = selected.length > 0 ? selected : testFiles(join(root, 'test'));
  const started = Date.now();
  const { temporal, uiPort } = await startDevServer();
  const uiUrl = `http://127.0.0.1:${uiPort}`;
  process.stdout.write(
    `harness: Temporal dev server on ${temporal.address} (Web UI ${uiUrl}), ${files.length} test files\n`,
  );
  const scratch = mkdtempSync(join(tmpdir(), 'mesh-harness-'));
  try {
    const bundle = join(scratch, 'workflows.js');
    await writeWorkflowBundle(bundle);
    // node:test's run() on Node 20 has no env or cwd option: its test processes inherit this process's.
    Object.assign(process.env, {
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_UI_URL: uiUrl,
      MESH_WORKFLOW_BUNDLE: bundle,
    });
    const relativeFiles = files.map((file) => relative(root, file));
    process.chdir(root);
    const tally = await runTestFiles(relativeFiles);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    process.stdout.write(`\nharness: ${files.length} test files in ${seconds}s\n${summaryLine(tally)}\n`);
    return allPassed(tally) ? 0 : 1;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    await temporal.teardown();
  }
}

void main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`harness: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
