import type { Waiting } from '../contracts';

/** cyrb53: a fast 53-bit string hash; enough to tell evidence apart, not a security boundary. */
function cyrb53(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, '0');
}

export type Evidence = Pick<Waiting, 'gate' | 'verdict' | 'reason' | 'actions' | 'facts'>;

/** The short hash of what the operator is shown at a gate: same evidence, same hash, whenever it is shown. */
export function evidenceHash(evidence: Evidence): string {
  const { gate, verdict, reason, actions, facts } = evidence;
  return cyrb53(JSON.stringify([gate, verdict, reason, actions, facts])).slice(0, 10);
}

/** What differs between the evidence a decision was sent against and the evidence shown now. */
export function evidenceChange(before: Evidence, now: Evidence): string {
  if (before.gate !== now.gate) {
    return `it was shown at gate ${before.gate} (${before.verdict}: ${before.reason}); the runbook now waits at ${now.gate} (${now.verdict})`;
  }
  const gone = before.facts.filter((fact) => !now.facts.includes(fact));
  const added = now.facts.filter((fact) => !before.facts.includes(fact));
  const changes = [
    ...(before.verdict !== now.verdict ? [`the verdict went from ${before.verdict} to ${now.verdict}`] : []),
    ...gone.map((fact) => `no longer: ${fact}`),
    ...added.map((fact) => `now: ${fact}`),
  ];
  if (changes.length === 0) changes.push(`the sentence is now: ${now.reason}`);
  return `at ${now.gate} ${changes.join('; ')}`;
}
