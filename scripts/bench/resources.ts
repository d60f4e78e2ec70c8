import type { PgWritten } from './pg-written';
import { cpuSince, readCpu, sumCpu, type CpuUsed } from './proc-cpu';

/** What one executor run cost beyond its wall time. */
export interface RunResources {
  /** The start call to the runbook's close: the window the CPU times are read over. */
  windowMs: number;
  /**
   * Each process the runbook's worker runs in (the bench's one worker; on the lab the runbook worker and the
   * node's worker): its own threads, and the children it waited for (the lab's meshctl runs).
   */
  workers: Record<string, CpuUsed | undefined>;
  /** Temporal's server, children included: the dev server's one process, or the lab's four services. */
  temporalCpuMs?: number;
  /** PostgreSQL's postmaster and backends (the lab). */
  postgresCpuMs?: number;
  /** What PostgreSQL wrote from before the start to a settling pause after the close (the lab). */
  postgres?: PgWritten & { windowMs: number };
}

/** The processes a run is metered on, by name. */
export interface Meters {
  workers: Record<string, number>;
  temporal: Record<string, number>;
  postgres?: number;
}

/** Own and children together, of every process; undefined when there is none or one is unknown. */
function total(used: Record<string, CpuUsed | undefined>): number | undefined {
  const parts = Object.values(used);
  const sum = parts.length > 0 ? sumCpu(parts) : undefined;
  return sum && sum.ownMs + sum.childrenMs;
}

/** CPU times read at the start of a run; `close` gives what each metered process used since. */
export class CpuWindow {
  private constructor(
    private readonly startedAt: number,
    private readonly workers: ReturnType<typeof readCpu>,
    private readonly temporal: ReturnType<typeof readCpu>,
    private readonly postgres: ReturnType<typeof readCpu>,
  ) {}

  static open(meters: Meters): CpuWindow {
    return new CpuWindow(
      Date.now(),
      readCpu(meters.workers),
      readCpu(meters.temporal, true),
      meters.postgres === undefined ? {} : readCpu({ postgres: meters.postgres }, true),
    );
  }

  close(): RunResources {
    const windowMs = Date.now() - this.startedAt;
    const workers = cpuSince(this.workers);
    const temporalCpuMs = total(cpuSince(this.temporal, true));
    const postgresCpuMs =
      Object.keys(this.postgres).length > 0 ? total(cpuSince(this.postgres, true)) : undefined;
    return {
      windowMs,
      workers,
      ...(temporalCpuMs !== undefined ? { temporalCpuMs } : {}),
      ...(postgresCpuMs !== undefined ? { postgresCpuMs } : {}),
    };
  }
}

/** The workers' CPU time together: their own threads, and the children they waited for. */
export function workersCpu(resources: RunResources): CpuUsed | undefined {
  const parts = Object.values(resources.workers);
  return parts.length > 0 ? sumCpu(parts) : undefined;
}
