import type { CliTiming } from './cli-timing';
import type { DarkEdgeRun } from './dark-edge';
import type { FleetRun } from './fleet';
import type { ContenderRun } from './contenders';
import type { IdleRates } from './idle';
import type { BenchOptions } from './options';
import type { ScaleResult } from './scale';
import type { ContenderSummary } from './summaries';

/** Everything one bench run measured: what `--json` prints and the tables are made of. */
export interface BenchResult {
  bench: 'edge-flip';
  startedAt: string;
  machine: { cpus: number; loadAtStart: number[]; loadAtEnd: number[]; node: string };
  options: Pick<BenchOptions, 'rounds' | 'quick' | 'lab' | 'contenders' | 'warmup' | 'scale' | 'fleet'>;
  /** With --lab: where the lab's side ran, and how long PostgreSQL's statistics were let settle after a run. */
  lab?: { temporal: string; namespace: string; node: string; pgSettleMs: number };
  /** With --lab: both sides left alone for a while before the rounds, per second. */
  idle?: IdleRates;
  /** The runbook's default timings, which the executor runs with (as the demo does). */
  timings: Record<string, number>;
  /** The stability window the shell flip and the floor wait, from each container's own StartedAt. */
  stabilityWindowMs: number;
  contenders: ContenderSummary[];
  /** Ratios of medians, e.g. `executor/shell`. */
  ratios: Record<string, number | undefined>;
  /** The same of the wall times less the wait for the public port after the stop (ContenderSummary). */
  ratiosWithoutServedAfterStop: Record<string, number | undefined>;
  worker: { idleRssMb: number; peakRssMb: number };
  /** Absent when not selected (`--only` without cli). */
  cli?: CliTiming[];
  scale: ScaleResult[];
  /** Absent when not selected: each round's dark edge with the controller answering, then not. */
  darkEdge?: DarkEdgeRun[];
  /** With --fleet: each size's fleet runbook over simulated nodes (scripts/bench/fleet.ts). */
  fleet?: FleetCurve;
  notes: { attribution: string; shellDoes: string[]; shellDoesNot: string[] };
  runs: ContenderRun[];
}

/** The fleet runs in order of size, and each one's worker CPU per node over the smallest's. */
export interface FleetCurve {
  waveSize: number;
  runs: FleetRun[];
  /** Worker CPU per node at each size / at the smallest size: a measurement, never asserted. */
  cpuPerNodeVsSmallest: (number | undefined)[];
}
