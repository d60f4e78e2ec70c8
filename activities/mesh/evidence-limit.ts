import type { Unreadable } from '../../workflows/verdict';

/**
 * The most one node document may weigh as a gate's evidence. Temporal refuses an activity result over
 * 2 MB (the activity then fails, and the gate waits on the wrong verdict), and every push's evidence stays
 * in the runbook's history; a real node's report of a few hundred resources is tens of KB.
 */
export const EVIDENCE_LIMIT_BYTES = 256 * 1024;

function size(bytes: number): string {
  return bytes >= 1 << 20 ? `${(bytes / (1 << 20)).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}

/**
 * The evidence as it is, or unreadable when the document is too big to carry: the sentence gives its
 * size, the limit, and what `counts` says it holds, so the operator knows what to read on the node.
 */
export function withinEvidenceLimit<T>(
  evidence: { readable: true; value: T } | Unreadable,
  source: string,
  counts: (value: T) => string,
  limitBytes = EVIDENCE_LIMIT_BYTES,
): { readable: true; value: T } | Unreadable {
  if (!evidence.readable) return evidence;
  const bytes = Buffer.byteLength(JSON.stringify(evidence.value));
  if (bytes <= limitBytes) return evidence;
  return {
    readable: false,
    source,
    error: `it is ${size(bytes)} (${counts(evidence.value)}), more than the ${size(limitBytes)} a runbook keeps as evidence; read it on the node`,
  };
}
