import { existsSync } from 'node:fs';

/** How many dev-server test files run at once unless `--jobs` says otherwise (measured: docs/measurements.md). */
export const DEFAULT_JOBS = 4;
const MAX_JOBS = 8;

export interface HarnessOptions {
  /** The test files to run; none: every file under test/. */
  files: string[];
  /** Dev-server test files at once (the lab's files run one at a time beside them). */
  jobs: number;
  /** One core kept busy by a CPU hog for the whole run: the tests must pass on a loaded machine. */
  underLoad: boolean;
}

/** Bad harness arguments: one sentence with what to use instead; nothing was started. */
export class HarnessUsageError extends Error {
  override readonly name = 'HarnessUsageError';
}

/** `[--jobs N] [--under-load] [test files...]`. */
export function parseHarnessOptions(argv: string[]): HarnessOptions {
  const options: HarnessOptions = { files: [], jobs: DEFAULT_JOBS, underLoad: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--under-load') options.underLoad = true;
    else if (arg === '--jobs' || arg.startsWith('--jobs=')) {
      const value = arg === '--jobs' ? argv[++i] : arg.slice('--jobs='.length);
      const jobs = Number(value);
      if (!Number.isInteger(jobs) || jobs < 1 || jobs > MAX_JOBS)
        throw new HarnessUsageError(
          `--jobs needs a whole number from 1 to ${MAX_JOBS} (got ${value ?? 'nothing'}), e.g. --jobs ${DEFAULT_JOBS}.`,
        );
      options.jobs = jobs;
    } else if (arg.startsWith('-'))
      throw new HarnessUsageError(
        `Unknown option ${arg}: use --jobs <n>, --under-load, or name test files (e.g. test/unit/verdict.test.ts).`,
      );
    else if (!arg.endsWith('.ts') || !existsSync(arg))
      throw new HarnessUsageError(
        `${arg} is not a test file here: name existing .ts files, e.g. test/unit/verdict.test.ts.`,
      );
    else options.files.push(arg);
  }
  return options;
}
