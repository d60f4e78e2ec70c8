import type { Timings } from '../contracts';
import type { ProbeResult } from '../../activities/probes/schemas';
import { act } from './activities';

export interface ProbeTarget {
  address: string;
  names: string[];
  expectStatus: number;
  marker?: string;
  /** Text the answers must not carry (the successor's marker, when the predecessor must be the one answering). */
  absentMarker?: string;
  /** The node that must answer, proven by the answer header `nodeHeader` carrying its name. */
  node?: string;
  nodeHeader?: string;
}

export interface ProbeOutcome {
  ok: boolean;
  summary: string;
}

/**
 * Probes every public name until all answer as expected or the probe deadline passes (one activity). With
 * `bindWithinMs`, it gives up sooner when for that long every connection was refused: nothing took the port.
 */
export async function probeUntilServed(
  target: ProbeTarget,
  timings: Timings,
  { bindWithinMs }: { bindWithinMs?: number | undefined } = {},
): Promise<ProbeOutcome> {
  const results = await act.probeUntilServed({
    ...target,
    timeoutMs: 5_000,
    deadlineMs: timings.probeDeadlineMs,
    ...(bindWithinMs !== undefined ? { bindWithinMs } : {}),
  });
  const outcome = outcomeOf(target, results);
  const windowEndedIt = bindWithinMs !== undefined && bindWithinMs < timings.probeDeadlineMs;
  if (outcome.ok || !windowEndedIt || !results.every((r) => r.refused)) return outcome;
  return {
    ...outcome,
    summary: `nothing took ${target.address} within ${bindWithinMs / 1000} s: ${outcome.summary}`,
  };
}

/** One probe of every public name. */
export async function probeOnce(target: ProbeTarget): Promise<ProbeOutcome & { failing: number }> {
  return outcomeOf(target, await act.probePublicNames({ ...target, timeoutMs: 5_000 }));
}

/** An answer from another node than the target's: never a pass. */
function answeredByOther(target: ProbeTarget, result: ProbeResult): string {
  if (result.answeredBy === undefined || result.answeredBy === target.node) return '';
  return result.answeredBy === ''
    ? `, no ${target.nodeHeader ?? 'node'} header naming ${target.node ?? 'the node'}`
    : `, answered by ${result.answeredBy}, not ${target.node ?? 'the node'}`;
}

function outcomeOf(target: ProbeTarget, results: ProbeResult[]): ProbeOutcome & { failing: number } {
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
        `${result.name} (${result.error ?? `status ${result.status ?? '?'}${result.markerFound === false ? ', not the expected server' : ''}${result.absentMarkerFound === true ? ', answered by the wrong server' : ''}${answeredByOther(target, result)}`})`,
    )
    .join(', ');
  return {
    ok: false,
    failing: failing.length,
    summary: `${failing.length} of ${results.length} names failed from ${target.address}: ${what}`,
  };
}
