import type { RunbookWorker } from '../../worker/create-worker';

/**
 * Runs a bench worker in its child process: `{"ready": identity}` on stdout once it polls (BenchWorker waits
 * for that line), and a shutdown when the parent closes its stdin, however the parent exits.
 */
export async function serveUntilParentLeaves(worker: RunbookWorker): Promise<void> {
  const running = worker.run();
  process.stdin.on('close', () => worker.shutdown());
  process.stdin.resume();
  process.stdout.write(`${JSON.stringify({ ready: worker.identity })}\n`);
  await running;
}
