import { parseActivityInput } from '../failures';
import { heartbeat } from '../../base/activity-heartbeat';
import { pauseWithHeartbeat } from '../docker/activity-context';
import { getWithHost } from './http-get';
import { ProbeInput, ProbeResult } from './schemas';

export { summariseProbes } from './summary';
export { ProbeInput, ProbeResult } from './schemas';

async function probeOne(address: URL, name: string, input: ProbeInput): Promise<ProbeResult> {
  const wantsBody = input.marker !== undefined || input.absentMarker !== undefined;
  const outcome = await getWithHost(address, name, input.timeoutMs, wantsBody, input.nodeHeader);
  if ('error' in outcome)
    return { name, ok: false, error: outcome.error, ...(outcome.refused ? { refused: true } : {}) };
  const markerFound = input.marker !== undefined ? outcome.body.includes(input.marker) : undefined;
  const absentMarkerFound =
    input.absentMarker !== undefined ? outcome.body.includes(input.absentMarker) : undefined;
  const answeredBy = input.nodeHeader !== undefined ? (outcome.header ?? '').trim() : undefined;
  const ok =
    outcome.status === input.expectStatus &&
    markerFound !== false &&
    absentMarkerFound !== true &&
    (answeredBy === undefined || answeredBy === input.node);
  return {
    name,
    ok,
    status: outcome.status,
    ...(markerFound !== undefined ? { markerFound } : {}),
    ...(absentMarkerFound !== undefined ? { absentMarkerFound } : {}),
    ...(answeredBy !== undefined ? { answeredBy } : {}),
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

const FIRST_RETRY_MS = 25;
const LONGEST_RETRY_MS = 50;

/**
 * Probes until every name answers as expected or `deadlineMs` passes, trying again after 25 ms and then
 * every 50 ms, as the shell flip does: a successor that binds a port freed by its predecessor (the demo's
 * tries every half second) is noticed within 50 ms. With `bindWithinMs`, it stops sooner when every
 * connection for that long was refused: nothing took the port, and a successor that has not by then will
 * not. Returns the last results either way; heartbeats; a cancelled activity stops.
 */
export async function probeUntilServed(
  input: ProbeInput & { deadlineMs: number; bindWithinMs?: number },
): Promise<ProbeResult[]> {
  const started = Date.now();
  const deadline = started + input.deadlineMs;
  let bound = false;
  for (let pause = FIRST_RETRY_MS; ; pause = Math.min(pause * 2, LONGEST_RETRY_MS)) {
    const results = await probePublicNames(input);
    if (results.every((r) => r.ok) || Date.now() + pause > deadline) return results;
    bound ||= results.some((r) => !r.refused);
    if (!bound && input.bindWithinMs !== undefined && Date.now() - started >= input.bindWithinMs)
      return results;
    heartbeat({ failing: results.filter((r) => !r.ok).map((r) => r.name) });
    await pauseWithHeartbeat(pause, { retryingInMs: pause });
  }
}

/** Activities that look at a node from outside, the way its users do. */
export function createProbeActivities() {
  return { probePublicNames, probeUntilServed };
}

export type ProbeActivities = ReturnType<typeof createProbeActivities>;
