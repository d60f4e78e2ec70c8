import type { ProbeResult } from './schemas';

function failure(result: ProbeResult, expectStatus?: number): string {
  if (result.error !== undefined) return `${result.name}: ${result.error}`;
  if (expectStatus !== undefined && result.status !== expectStatus)
    return `${result.name} answered ${result.status}`;
  if (result.markerFound === false) return `${result.name} answered ${result.status} without the marker`;
  return `${result.name} answered ${result.status}`;
}

/**
 * One line for a step note, e.g. `3/3 names answered 200 from http://127.0.0.1:18080` or
 * `1/2 names answered 200 from http://…; b.example answered 502`. Pure.
 */
export function summariseProbes(
  results: ProbeResult[],
  context: { address?: string; expectStatus?: number } = {},
): string {
  const passed = results.filter((r) => r.ok).length;
  const answered =
    context.expectStatus !== undefined ? `answered ${context.expectStatus}` : 'answered as expected';
  const from = context.address !== undefined ? ` from ${context.address}` : '';
  const head = `${passed}/${results.length} ${results.length === 1 ? 'name' : 'names'} ${answered}${from}`;
  const failures = results.filter((r) => !r.ok).map((r) => failure(r, context.expectStatus));
  return failures.length === 0 ? head : `${head}; ${failures.join('; ')}`;
}
