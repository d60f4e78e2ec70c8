import { spawn } from 'node:child_process';

/** The longest a hog runs if the harness that started it was killed before it could end it. */
const HOG_BOUND_MS = 3 * 60 * 60_000;

/**
 * `--under-load`: a busy loop on one core, as a type-check or a build beside the tests would be; it ends
 * with the harness (`stop`), and on its own after HOG_BOUND_MS if the harness could not end it.
 */
export function startCpuHog(): { stop(): void } {
  const loop = `const end = Date.now() + ${HOG_BOUND_MS}; while (Date.now() < end) {}`;
  const hog = spawn(process.execPath, ['-e', loop], { stdio: 'ignore' });
  hog.unref();
  const stop = () => void hog.kill('SIGKILL');
  process.once('exit', stop);
  return { stop };
}
