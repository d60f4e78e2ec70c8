import type { Worker } from '@temporalio/worker';
import { createNodeWorker, type NodeSite, type NodeWorkerOptions } from './node-worker';

/**
 * The node workers of one process, added as nodes become known (listed at start, or found in the local
 * mesh), all stopped by one `shutdown`. `done` settles once every one of them has stopped after a
 * shutdown, and rejects with the first that failed.
 */
export class NodeWorkers {
  private readonly served = new Set<string>();
  private readonly workers: Worker[] = [];
  private readonly runs: Promise<void>[] = [];
  private stopping = false;
  private shutdownAsked!: () => void;
  private readonly stopped = new Promise<void>((resolve) => (this.shutdownAsked = resolve));

  constructor(
    private readonly base: Omit<NodeWorkerOptions, 'site'>,
    /** Called when a node worker fails (with its error) or stops unasked, so the whole process stops. */
    private readonly onStop: (error?: unknown) => void,
  ) {}

  /** Starts polling the node's queue; a node served already, or added after shutdown, is left alone. */
  add(site: NodeSite): void {
    if (this.stopping || this.served.has(site.node)) return;
    this.served.add(site.node);
    const run = createNodeWorker({ ...this.base, site }).then((worker) => {
      this.workers.push(worker);
      const running = worker.run();
      if (this.stopping) worker.shutdown();
      return running;
    });
    run.then(
      () => this.stopping || this.onStop(),
      (error: unknown) => this.onStop(error),
    );
    this.runs.push(run);
  }

  shutdown(): void {
    this.stopping = true;
    for (const worker of this.workers) if (worker.getState() === 'RUNNING') worker.shutdown();
    this.shutdownAsked();
  }

  async done(): Promise<void> {
    await this.stopped;
    const results = await Promise.allSettled(this.runs);
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  }
}
