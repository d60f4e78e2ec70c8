import type { Client } from '@temporalio/client';
import { statusQuery } from '../../workflows/contracts';
import type { SeenWait } from './drive';

/**
 * Every wait of a runbook, seen from the side (its status asked every 200 ms, whoever decides): what
 * `wrongProceeds` checks the runbook's steps against when the operator is a CLI process.
 */
export class WaitLog {
  readonly waits: SeenWait[] = [];
  private stopped = false;
  private readonly polling: Promise<void>;

  constructor(client: Client, workflowId: string) {
    const handle = client.workflow.getHandle(workflowId);
    this.polling = (async () => {
      while (!this.stopped) {
        const waiting = (await handle.query(statusQuery).catch(() => undefined))?.waiting;
        if (waiting && !this.waits.some((w) => w.gate === waiting.gate && w.since === waiting.since))
          this.waits.push({
            gate: waiting.gate,
            verdict: waiting.verdict,
            since: waiting.since,
            reason: waiting.reason,
          });
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
  }

  async stop(): Promise<SeenWait[]> {
    this.stopped = true;
    await this.polling;
    return this.waits;
  }
}
