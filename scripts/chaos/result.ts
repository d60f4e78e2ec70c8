/** One run of an experiment: whether it held, and what it counted. */
export interface RunResult {
  /** e.g. `edge-flip kill at pushNode#1 (scheduled)`. */
  name: string;
  passed: boolean;
  /** The runbook did not reach the end an undisturbed run reaches (stalled, failed, gone). */
  lost: number;
  /** Side effects beyond an undisturbed run's: extra container create/start/stop/die, a copy from zero. */
  duplicated: number;
  /** Steps after a gate that ran while the gate's evidence was not ok and nobody decided. */
  wrongProceeds: number;
  /** Seconds from the fault to the runbook moving again, when the run measures it. */
  recoveryS?: number;
  /** What went wrong or what is worth knowing, one line each. */
  notes: string[];
}

export interface ExperimentResult {
  experiment: string;
  runs: RunResult[];
  seconds: number;
}

/** A run that failed for a reason outside the three counted columns (a check, a crash of the harness). */
export function failedRun(name: string, note: string): RunResult {
  return { name, passed: false, lost: 0, duplicated: 0, wrongProceeds: 0, notes: [note] };
}

/** Whether the suite as a whole holds: every run passed and the three counted columns are zero. */
export function allHeld(results: ExperimentResult[]): boolean {
  return results.every((r) =>
    r.runs.every((run) => run.passed && run.lost === 0 && run.duplicated === 0 && run.wrongProceeds === 0),
  );
}
