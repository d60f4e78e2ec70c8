import { CancellationScope, condition } from '@temporalio/workflow';

/** Long work an abort stopped waiting for: what, on which node, since when it was cancelled, and its end. */
export interface LeftRunning<S extends string = string> {
  /** The step whose work it is. */
  what: S;
  node: string;
  /** When the abort asked it to stop (ISO). */
  cancelledAt: string;
  ended: Promise<void>;
}

/**
 * Long work (a copy, verify or catch-up) whose cancellation is awaited at most `graceMs`. Work hung in a
 * call of the node's file system (a frozen or network mount) never hears its cancellation, so an abort that
 * waited for it would hold every undo step, the module down, for up to the activity's day-long deadline.
 * Past the grace the abort goes on (`onLeft` says which undo must still wait), the work is kept here, and
 * whatever must not run beside it (B's removal, another long work on its node) awaits `endedOn` first.
 */
export class CancelledWork<S extends string> {
  private readonly left: LeftRunning<S>[] = [];

  constructor(
    private readonly graceMs: number,
    private readonly onLeft: (left: LeftRunning<S>) => void,
  ) {}

  /** Runs `work` (`what` on `node`); cancelled, waits for it to stop at most the grace, then rethrows the cancellation. */
  async run<T>(what: S, node: string, work: () => Promise<T>): Promise<T> {
    await this.endedOn([node]);
    const scope = CancellationScope.current();
    if (!reachedByCancellation(scope)) return work();
    const running = work();
    let stopped = false;
    const ended = running.then(
      () => void (stopped = true),
      () => void (stopped = true),
    );
    const outcome = await Promise.race([
      running.then((value) => ({ value })),
      scope.cancelRequested.catch((cancel: unknown) => ({ cancel })),
    ]);
    if ('value' in outcome) return outcome.value;
    const cancelledAt = new Date().toISOString();
    if (await CancellationScope.nonCancellable(() => condition(() => stopped, this.graceMs))) return running;
    const left = { what, node, cancelledAt, ended };
    this.left.push(left);
    void ended.then(() => this.left.splice(this.left.indexOf(left), 1));
    this.onLeft(left);
    throw outcome.cancel;
  }

  /** The work left running on these nodes that has not ended yet. */
  stillRunning(nodes: readonly string[]): LeftRunning<S>[] {
    return this.left.filter((l) => nodes.includes(l.node));
  }

  /** Resolves once every work left running on these nodes has ended. */
  async endedOn(nodes: readonly string[]): Promise<void> {
    await Promise.all(this.stillRunning(nodes).map((l) => l.ended));
  }
}

/** Whether a cancellation of the workflow reaches work started in `scope`: no non-cancellable scope shields it. */
function reachedByCancellation(scope: CancellationScope): boolean {
  for (let at: CancellationScope | undefined = scope; at; at = at.parent) if (!at.cancellable) return false;
  return true;
}
