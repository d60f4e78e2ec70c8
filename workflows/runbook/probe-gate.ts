import { sleep } from '@temporalio/workflow';
import type { Timings } from '../contracts';
import { act } from './activities';

export interface ProbeTarget {
  address: string;
  names: string[];
  expectStatus: number;
  marker?: string;
}

export interface ProbeOutcome {
  ok: boolean;
  summary: string;
}

/** Probes every public name until all answer as expected or the probe deadline passes. */
export async function probeUntilServed(target: ProbeTarget, timings: Timings): Promise<ProbeOutcome> {
  const deadline = new Date().getTime() + timings.probeDeadlineMs;
  for (;;) {
    const results = await act.probePublicNames({ ...target, timeoutMs: 5_000 });
    const failing = results.filter((result) => !result.ok);
    if (failing.length === 0) {
      return {
        ok: true,
        summary: `${results.length}/${results.length} names answered ${target.expectStatus} from ${target.address}`,
      };
    }
    if (new Date().getTime() >= deadline) {
      const what = failing
        .map(
          (result) =>
            `${result.name} (${result.error ?? `status ${result.status ?? '?'}${result.markerFound === false ? ', not the expected server' : ''}`})`,
        )
        .join(', ');
      return {
        ok: false,
        summary: `${failing.length} of ${results.length} names failed from ${target.address}: ${what}`,
      };
    }
    await sleep(timings.recheckEveryMs, { summary: `${failing.length} name(s) not served yet: probe again` });
  }
}
