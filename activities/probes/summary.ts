import type { ProbeResult } from './schemas';

export interface ProbeContext {
  address?: string;
  expectStatus?: number;
  /** The node that had to answer, and the header that names who did. */
  node?: string;
  nodeHeader?: string;
}

function failure(result: ProbeResult, context: ProbeContext): string {
  if (result.error !== undefined) return `${result.name}: ${result.error}`;
  if (context.expectStatus !== undefined && result.status !== context.expectStatus)
    return `${result.name} answered ${result.status}`;
  if (result.answeredBy !== undefined && result.answeredBy !== context.node)
    return result.answeredBy === ''
      ? `${result.name} answered ${result.status} without ${context.nodeHeader ?? 'the node header'} naming a node`
      : `${result.name} answered ${result.status} from ${result.answeredBy}, not ${context.node ?? 'the node asked'} (${context.nodeHeader ?? 'node header'})`;
  if (result.markerFound === false) return `${result.name} answered ${result.status} without the marker`;
  if (result.absentMarkerFound === true)
    return `${result.name} answered ${result.status} with the marker another server's answers carry`;
  return `${result.name} answered ${result.status}`;
}

/**
 * One line for a step note, e.g. `3/3 names answered 200 from http://127.0.0.1:18080` or
 * `1/2 names answered 200 from http://…; b.example answered 502`. Pure.
 */
export function summariseProbes(results: ProbeResult[], context: ProbeContext = {}): string {
  const passed = results.filter((r) => r.ok).length;
  const answered =
    context.expectStatus !== undefined ? `answered ${context.expectStatus}` : 'answered as expected';
  const from = context.address !== undefined ? ` from ${context.address}` : '';
  const head = `${passed}/${results.length} ${results.length === 1 ? 'name' : 'names'} ${answered}${from}`;
  const failures = results.filter((r) => !r.ok).map((r) => failure(r, context));
  return failures.length === 0 ? head : `${head}; ${failures.join('; ')}`;
}
