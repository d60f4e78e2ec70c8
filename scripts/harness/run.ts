import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { portPicker } from '../../test/support/ports';
import { writeWorkflowBundle } from '../../worker/workflow-bundle';
import { startCpuHog } from './cpu-hog';
import { placementOf } from './declarations';
import { startDevServer, type HarnessServer } from './dev-server';
import { runFileProcess, type FileOutcome } from './file-process';
import { runInLanes, type PlannedFile } from './lanes';
import type { HarnessOptions } from './options';
import { claimPortBlock } from './port-block';
import { expectedMs, loadTimes, saveTimes, slowestLines } from './times';
import { allPassed, summaryLine, type Tally } from '../node-test-run';

/**
 * The test harness: one real Temporal dev server, then every test file in a process of its own, several
 * side by side (scripts/harness/lanes.ts), each with its own ports and, where it declares so, its own dev
 * server; then the slowest files, the total time and a one-line summary counted from node:test's events.
 * It exits 1 unless tests ran and every one passed: a skipped, todo or cancelled test fails the run too.
 * Integration tests find the server in TEMPORAL_ADDRESS, its Web UI in TEMPORAL_UI_URL, their ports in
 * MESH_TEST_PORTS.
 */

const root = join(__dirname, '..', '..');
const SLOWEST = 20;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return testFiles(path);
      return entry.name.endsWith('.test.ts') ? [path] : [];
    })
    .sort();
}

/** Runs the files `options` names (every test file when none) and says how they went; the exit code. */
export async function runHarness(
  options: HarnessOptions,
  onInterrupt: (cleanup: () => Promise<void>) => void,
): Promise<number> {
  const started = Date.now();
  const files = (options.files.length > 0 ? options.files : testFiles(join(root, 'test'))).map((file) =>
    relative(root, resolve(file)),
  );
  process.chdir(root);
  const times = await loadTimes();
  const planned: PlannedFile[] = files.map((file) => ({
    file,
    placement: placementOf(file),
    expectedMs: expectedMs(file, times),
  }));
  const hog = options.underLoad ? startCpuHog() : undefined;
  const ports = await claimPortBlock();
  const shares = options.jobs + 2; // the harness's own servers, each dev-server lane, the lab's lane
  const ownPort = portPicker(ports.share(0, shares));
  const scratch = mkdtempSync(join(tmpdir(), 'mesh-harness-'));
  let server: HarnessServer | undefined;
  const cleanup = async () => {
    hog?.stop();
    rmSync(scratch, { recursive: true, force: true });
    await server?.temporal.teardown();
    await ports.release();
  };
  onInterrupt(cleanup);
  try {
    server = await startDevServer(ownPort);
    process.stdout.write(
      `harness: Temporal dev server on ${server.env.TEMPORAL_ADDRESS} (Web UI ${server.env.TEMPORAL_UI_URL}), ` +
        `${files.length} test files, ${options.jobs} at once beside the lab's${hog ? ', one core kept busy (--under-load)' : ''}\n`,
    );
    // A harness run inside a test file (test-harness.test.ts) takes its harness's bundle as it is.
    const bundle = process.env.MESH_HARNESS_BUNDLE ?? join(scratch, 'workflows.js');
    if (!process.env.MESH_HARNESS_BUNDLE) await writeWorkflowBundle(bundle);
    const shared = server.env;
    let done = 0;
    const outcomes = await runInLanes(planned, options.jobs, async ({ file, placement }, lane) => {
      const own = placement.kind === 'own-server' ? await startDevServer(ownPort) : undefined;
      try {
        const outcome = await runFileProcess(
          file,
          {
            ...(own?.env ?? shared),
            MESH_WORKFLOW_BUNDLE: bundle,
            MESH_HARNESS_BUNDLE: bundle,
            MESH_TEST_PORTS: ports.share(lane + 1, shares),
          },
          join(scratch, `tally-${lane}.json`),
        );
        printOutcome(outcome, ++done, files.length);
        return outcome;
      } finally {
        await own?.temporal.teardown();
      }
    });
    await saveTimes(times, outcomes);
    const tally = outcomes.reduce(addTally, { passed: 0, failed: 0, skipped: 0, todo: 0, cancelled: 0 });
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    process.stdout.write(
      `\nharness: the ${Math.min(SLOWEST, outcomes.length)} slowest files:\n` +
        `${slowestLines(outcomes, SLOWEST).join('\n')}\n` +
        `harness: ${files.length} test files in ${seconds}s (${options.jobs} at once beside the lab's)\n` +
        `${brokenLines(outcomes)}${summaryLine(tally)}\n`,
    );
    return allPassed(tally) ? 0 : 1;
  } finally {
    await cleanup();
  }
}

/** A file's whole output at once when it ended, under one line that says how it went. */
function printOutcome(outcome: FileOutcome, done: number, total: number): void {
  const { passed, failed, cancelled } = outcome.tally;
  const mark = failed + cancelled > 0 ? '✖' : '✔';
  process.stdout.write(
    `\n── [${done}/${total}] ${mark} ${outcome.file} in ${(outcome.ms / 1000).toFixed(1)}s ` +
      `(${passed} passed${failed ? `, ${failed} failed` : ''}${cancelled ? `, ${cancelled} cancelled` : ''})` +
      `${outcome.broken ? `: ${outcome.broken}` : ''}\n${outcome.stdout}`,
  );
  if (outcome.stderr) process.stderr.write(`── ${outcome.file} (stderr)\n${outcome.stderr}`);
}

function brokenLines(outcomes: FileOutcome[]): string {
  return outcomes.map((o) => (o.broken ? `harness: ${o.file}: ${o.broken}\n` : '')).join('');
}

function addTally(sum: Tally, { tally }: FileOutcome): Tally {
  return {
    passed: sum.passed + tally.passed,
    failed: sum.failed + tally.failed,
    skipped: sum.skipped + tally.skipped,
    todo: sum.todo + tally.todo,
    cancelled: sum.cancelled + tally.cancelled,
  };
}
