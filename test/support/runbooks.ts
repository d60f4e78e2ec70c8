import { createServer } from 'node:net';
import type { WorkflowHandle } from '@temporalio/client';
import { statusQuery, type RunbookStatus } from '../../workflows/contracts';

/** A free TCP port on 127.0.0.1, for edge containers on the host network. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Polls the runbook's status until `until` holds; fails with the last status after `timeoutMs`. */
export async function statusWhen(
  handle: WorkflowHandle,
  until: (status: RunbookStatus) => boolean,
  timeoutMs = 60_000,
): Promise<RunbookStatus> {
  const deadline = Date.now() + timeoutMs;
  let last: RunbookStatus | undefined;
  for (;;) {
    try {
      last = await handle.query(statusQuery);
      if (until(last)) return last;
    } catch (error) {
      if (Date.now() >= deadline) throw error;
    }
    if (Date.now() >= deadline) throw new Error(`timed out; last status: ${JSON.stringify(last, null, 2)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export const waitingAt = (gate: string) => (status: RunbookStatus) => status.waiting?.gate === gate;

export function stepState(status: RunbookStatus, name: string): string | undefined {
  return status.steps.find((step) => step.name === name)?.state;
}
