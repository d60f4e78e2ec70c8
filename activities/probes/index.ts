import { parseActivityInput } from '../failures';
import { getWithHost } from './http-get';
import { ProbeInput, ProbeResult } from './schemas';

export { summariseProbes } from './summary';
export { ProbeInput, ProbeResult } from './schemas';

async function probeOne(address: URL, name: string, input: ProbeInput): Promise<ProbeResult> {
  const wantsBody = input.marker !== undefined || input.absentMarker !== undefined;
  const outcome = await getWithHost(address, name, input.timeoutMs, wantsBody);
  if ('error' in outcome) return { name, ok: false, error: outcome.error };
  const markerFound = input.marker !== undefined ? outcome.body.includes(input.marker) : undefined;
  const absentMarkerFound =
    input.absentMarker !== undefined ? outcome.body.includes(input.absentMarker) : undefined;
  const ok = outcome.status === input.expectStatus && markerFound !== false && absentMarkerFound !== true;
  return {
    name,
    ok,
    status: outcome.status,
    ...(markerFound !== undefined ? { markerFound } : {}),
    ...(absentMarkerFound !== undefined ? { absentMarkerFound } : {}),
  };
}

/**
 * Asks `address` for each public name (GET /, Host: name) and reports how each answered. Never throws
 * for a name that does not answer: that is a result with `ok: false` and the error text.
 */
export async function probePublicNames(input: ProbeInput): Promise<ProbeResult[]> {
  const checked = parseActivityInput('probePublicNames', ProbeInput, input);
  const address = new URL(checked.address);
  const results = await Promise.all(checked.names.map((name) => probeOne(address, name, checked)));
  return ProbeResult.array().parse(results);
}

/** Activities that look at a node from outside, the way its users do. */
export function createProbeActivities() {
  return { probePublicNames };
}

export type ProbeActivities = ReturnType<typeof createProbeActivities>;
