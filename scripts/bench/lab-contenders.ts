import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { PUBLIC_PORT, seedEdges, STAGING_PORT } from '../../test/support/lab-stories';
import { flipThroughExecutor, type ExecutorRun } from './executor';
import { LAB_NODE, PG_SETTLE_MS, type LabSide } from './lab-side';
import { pgWritten, type PgReading } from './pg-written';
import { cleanUpShellFlip, flipByShell, setUpScriptFlip, type ShellFlip } from './shell';
import type { TimedFlip } from './contenders';

/** An executor run whose PostgreSQL figures wait for the statistics to settle (PG_SETTLE_MS). */
interface Unsettled {
  run: ExecutorRun;
  before: PgReading;
  beforeAt: number;
  closedAt: number;
}

/**
 * The two lab contenders: the edge flip of novox through the lab's executor (seeded through the controller
 * as the lab tests seed it, started with startRunbook on the lab's runbook worker, answered at once as on the
 * dev server), and the same flip by shell-edge-flip.sh inside novox's network namespace against novox's own
 * engine. Each starts from a reset lab. What PostgreSQL wrote for a run is read once its statistics settled:
 * at the first moment between two contenders from PG_SETTLE_MS after its close, so the bench never waits
 * for it unless the next lab executor run comes sooner.
 */
export class LabContenders {
  private unsettled: Unsettled | undefined;
  /** Since when nothing this bench measures ran on the lab's Temporal. */
  private quietSince = 0;

  constructor(readonly side: LabSide) {}

  /** Takes the lab (waiting for another process's story to end) and lets what it wrote settle. */
  async prepare(): Promise<void> {
    await this.side.story();
    this.quietSince = Date.now();
    await this.untilQuiet();
  }

  /** The edge flip through the lab's executor; its figures complete once `settle` has run. */
  async executor(): Promise<ExecutorRun> {
    await this.settle({ wait: true });
    const lab = await this.side.story();
    await seedEdges(lab, [LAB_NODE]);
    await this.untilQuiet();
    const beforeAt = Date.now();
    const before = await this.side.readPg();
    const run = await flipThroughExecutor(this.side.site(), this.side.edgeFlipInput());
    this.unsettled = { run, before, beforeAt, closedAt: Date.now() };
    this.quietSince = Date.now();
    return run;
  }

  /** The shell flip on novox, under its network namespace, against its engine; throws when it fails. */
  async shell(windowMs: number): Promise<TimedFlip> {
    const lab = await this.side.story();
    const host = this.side.node;
    const node = `bench-lsh-${randomBytes(3).toString('hex')}`;
    const flip: ShellFlip = await setUpScriptFlip({
      node,
      under: ['nsenter', `--net=/run/netns/${host.netns}`],
      env: {
        ...process.env,
        DOCKER_HOST: `unix://${host.dockerSocket}`,
        SF_NODE: node,
        SF_PUBLIC_PORT: String(PUBLIC_PORT),
        SF_STAGING_PORT: String(STAGING_PORT),
        SF_DIR: lab.onDisk(LAB_NODE, `srv/${node}`),
        SF_WINDOW_MS: String(windowMs),
      },
    });
    try {
      return await flipByShell(flip);
    } finally {
      await cleanUpShellFlip(flip);
    }
  }

  /**
   * Completes the last executor run's figures with what PostgreSQL wrote from its start until now, once
   * PG_SETTLE_MS passed since it closed: at once when it has, else (`wait`) after the rest of the pause.
   */
  async settle({ wait }: { wait: boolean }): Promise<void> {
    const pending = this.unsettled;
    if (!pending) return;
    const due = pending.closedAt + PG_SETTLE_MS - Date.now();
    if (due > 0 && !wait) return;
    if (due > 0) await sleep(due);
    this.unsettled = undefined;
    const after = await this.side.readPg();
    const written = { ...pgWritten(pending.before, after), windowMs: Date.now() - pending.beforeAt };
    const metered = pending.run.resources ?? { windowMs: pending.run.wallMs, workers: {} };
    pending.run.resources = { ...metered, postgres: written };
  }

  /** Until PG_SETTLE_MS after the lab's Temporal last did something of this bench's (or of another's before). */
  private async untilQuiet(): Promise<void> {
    const due = this.quietSince + PG_SETTLE_MS - Date.now();
    if (due > 0) await sleep(due);
  }
}
