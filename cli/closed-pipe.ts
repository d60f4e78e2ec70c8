let readerLeft = false;

/** Whether the reader of stdout or stderr closed its end early (`mesh runbook list | head -1`). */
export function readerClosedEarly(): boolean {
  return readerLeft;
}

/**
 * A reader that closes early (`| head`) ends nothing abruptly and prints no stack trace: what is left to
 * print is dropped, a command with work in hand (a decision to send) finishes it, and one that would go on
 * printing for as long as it runs (following a runbook, a worker, a dev server) stops as on Ctrl-C.
 */
export function quietWhenReaderLeaves(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      if (readerLeft) return;
      readerLeft = true;
      if (process.listenerCount('SIGINT') > 0) process.emit('SIGINT', 'SIGINT');
    });
  }
}
