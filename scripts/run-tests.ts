import { stopAllFiles } from './harness/file-process';
import { HarnessUsageError, parseHarnessOptions, type HarnessOptions } from './harness/options';

/**
 * The test harness (scripts/harness/run.ts): every test file against a real Temporal dev server, several
 * side by side. `[--jobs N] [--under-load] [test files...]`; bad arguments: one sentence, exit 2, nothing
 * started.
 */

/** What an interrupted harness still ends: its CPU hog, its dev server, its claim on ports. */
let onInterrupt: () => Promise<void> = async () => undefined;

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    stopAllFiles(signal);
    process.stderr.write(`harness: ${signal}: the running test files were sent ${signal}\n`);
    const bound = new Promise((resolve) => setTimeout(resolve, 15_000));
    void Promise.race([onInterrupt(), bound]).finally(() => process.exit(130));
  });

let options: HarnessOptions;
try {
  options = parseHarnessOptions(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof HarnessUsageError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(2);
}
void import('./harness/run')
  .then(({ runHarness }) => runHarness(options, (cleanup) => (onInterrupt = cleanup)))
  .then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`harness: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    },
  );
