import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

/** libuv's thread pool in this process: every file system call waits for one of its threads. */
export const POOL = Number(process.env.UV_THREADPOOL_SIZE ?? 4);

/**
 * Holds every thread of this process's libuv pool in an open() of a FIFO nobody writes to, as calls hung in
 * a frozen or network mount hold them: every later file system call of the process queues behind them,
 * while its timers, sockets and Temporal's own threads go on. `release` opens the FIFOs' other ends (from
 * the event loop: a non-blocking open never waits for the pool) and lets them go.
 */
export function holdThreadPool(dir: string): { release(): Promise<void> } {
  const fifos = Array.from({ length: POOL }, (_, i) => join(dir, `hold-${i}`));
  for (const fifo of fifos) execFileSync('mkfifo', [fifo]);
  const opened: Promise<FileHandle>[] = fifos.map((fifo) => open(fifo, 'r'));
  return {
    async release() {
      const writers = fifos.map((fifo) => openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      for (const handle of await Promise.all(opened)) await handle.close();
      writers.forEach((fd) => closeSync(fd));
    },
  };
}
