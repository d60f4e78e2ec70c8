/** Frozen with the revision-1 runbooks (workflows/legacy/): what they schedule must not change. */
import { sleep } from '@temporalio/workflow';
import type { Timings } from '../contracts';
import { act } from '../runbook/activities';

export interface ProbeTarget {
  address: string;
  names: string[];
  expectStatus: number;
  marker?: string;
  /** Text the answers must not carry (the successor's marker, when the predecessor must be the one answering). */
  absentMarker?: string;
}

export interface ProbeOutcome {
  ok: boolean;
  summary: string;
}

/** Probes every public name until all answer as expected or the probe deadline passes. */
export async function probeUntilServed(target: ProbeTarget, timings: Timings): Promise<ProbeOutcome> {
  const deadline = new Date().getTime() + timings.probeDeadlineMs;
  for (;;) {
    const outcome = await probeOnce(target);
    if (outcome.ok || new Date().getTime() >= deadline) return outcome;
    await sleep(timings.recheckEveryMs, {
      summary: `${outcome.failing} name(s) not served yet: probe again`,
    });
  }
}

/** One probe of every public name. */
export async function probeOnce(target: ProbeTarget): Promise<ProbeOutcome & { failing: number }> {
  const results = await act.probePublicNames({ ...target, timeoutMs: 5_000 });
  const failing = results.filter((result) => !result.ok);
  if (failing.length === 0) {
    return {
      ok: true,
      failing: 0,
      summary: `${results.length}/${results.length} names answered ${target.expectStatus} from ${target.address}`,
    };
  }
  const what = failing
    .map(
      (result) =>
        `${result.name} (${result.error ?? `status ${result.status ?? '?'}${result.markerFound === false ? ', not the expected server' : ''}${result.absentMarkerFound === true ? ', answered by the wrong server' : ''}`})`,
    )
    .join(', ');
  return {
    ok: false,
    failing: failing.length,
    summary: `${failing.length} of ${results.length} names failed from ${target.address}: ${what}`,
  };
}
