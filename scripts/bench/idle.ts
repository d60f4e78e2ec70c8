import { setTimeout as sleep } from 'node:timers/promises';
import type { LabSide } from './lab-side';
import { pgWritten } from './pg-written';
import { CpuWindow, workersCpu, type Meters, type RunResources } from './resources';

/** Per second while nothing runs: what a run's figures include for its window's length alone. */
export interface IdleRates {
  seconds: number;
  devServer: CpuRates;
  lab: CpuRates & {
    walBytesPerS: number;
    rowsPerS: number;
    commitsPerS: number;
  };
}

interface CpuRates {
  workerMsPerS?: number;
  temporalMsPerS?: number;
  postgresMsPerS?: number;
}

function perSecond(resources: RunResources, seconds: number): CpuRates {
  const rates: CpuRates = {};
  const worker = workersCpu(resources);
  if (worker) rates.workerMsPerS = (worker.ownMs + worker.childrenMs) / seconds;
  if (resources.temporalCpuMs !== undefined) rates.temporalMsPerS = resources.temporalCpuMs / seconds;
  if (resources.postgresCpuMs !== undefined) rates.postgresMsPerS = resources.postgresCpuMs / seconds;
  return rates;
}

/**
 * Both sides left alone for `ms` (after the lab's statistics settled): the workers' and servers' CPU time and
 * what PostgreSQL writes by itself, per second.
 */
export async function measureIdle(dev: Meters, lab: LabSide, ms: number): Promise<IdleRates> {
  const devCpu = CpuWindow.open(dev);
  const labCpu = CpuWindow.open(lab.processes());
  const before = await lab.readPg();
  const started = Date.now();
  await sleep(ms);
  const after = await lab.readPg();
  const seconds = (Date.now() - started) / 1000;
  const written = pgWritten(before, after);
  return {
    seconds,
    devServer: perSecond(devCpu.close(), seconds),
    lab: {
      ...perSecond(labCpu.close(), seconds),
      walBytesPerS: written.walBytes / seconds,
      rowsPerS: written.rows / seconds,
      commitsPerS: written.commits / seconds,
    },
  };
}
